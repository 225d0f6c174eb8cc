//! The optimiser: its rules on small programs (identities, accumulator reductions), its effect
//! on the cost of derivatives, and that it changes no result on the corpus. The rules' own
//! file tests are run by the `ir_files` test binary; consumer fusion's tests, which force
//! exact floats for the whole process, are the `consumer_fusion` binary.

mod accred;
mod cost;
mod equiv;
mod identities;
