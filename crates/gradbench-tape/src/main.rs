//! `gradbench-tape`: a GradBench tool speaking the JSON-lines protocol on stdin/stdout.

fn main() {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    if let Err(e) = gradbench_tape::protocol::serve(stdin.lock(), stdout.lock()) {
        eprintln!("gradbench-tape: {e}");
        std::process::exit(1);
    }
}
