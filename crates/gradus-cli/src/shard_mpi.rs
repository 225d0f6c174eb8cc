//! The MPI transport of `gradus run --shard` (docs/mpi.md): [`Comm`] over `MPI_COMM_WORLD`
//! through the `mpi` crate (rsmpi). Built with the cargo feature `mpi` only.

use crate::shard::Comm;
use gradus::shard::ShardPlan;
use gradus::shard::mpi::{Results, Traffic, combine_results};
use gradus::value::{Value, ValueRef};
use mpi::Count;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// `MPI_COMM_WORLD`.
struct World(SimpleCommunicator);

/// Runs `f` with the world communicator between `MPI_Init` and `MPI_Finalize`.
pub fn with_world(f: impl FnOnce(&dyn Comm) -> u8) -> u8 {
    let Some(universe) = mpi::initialize() else {
        eprintln!("Error: MPI could not be initialised");
        return 2;
    };
    let code = f(&World(universe.world()));
    drop(universe);
    code
}

/// Counts and displacements of `parts` as MPI wants them.
fn layout(lens: &[usize]) -> (Vec<Count>, Vec<Count>) {
    let counts: Vec<Count> = lens.iter().map(|&l| l as Count).collect();
    let displs = counts
        .iter()
        .scan(0, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect();
    (counts, displs)
}

impl Comm for World {
    fn rank(&self) -> usize {
        self.0.rank() as usize
    }
    fn size(&self) -> usize {
        self.0.size() as usize
    }
    fn broadcast(&self, bytes: &mut Vec<u8>) {
        let root = self.0.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        bytes.resize(len as usize, 0);
        root.broadcast_into(&mut bytes[..]);
    }
    fn scatter(&self, parts: Option<Vec<Vec<u8>>>) -> Vec<u8> {
        let root = self.0.process_at_rank(0);
        let mut len: Count = 0;
        match parts {
            Some(parts) => {
                let lens: Vec<usize> = parts.iter().map(Vec::len).collect();
                let (counts, displs) = layout(&lens);
                root.scatter_into_root(&counts[..], &mut len);
                let flat: Vec<u8> = parts.concat();
                let mut mine = vec![0u8; len as usize];
                let send = Partition::new(&flat[..], counts, displs);
                root.scatter_varcount_into_root(&send, &mut mine[..]);
                mine
            }
            None => {
                root.scatter_into(&mut len);
                let mut mine = vec![0u8; len as usize];
                root.scatter_varcount_into(&mut mine[..]);
                mine
            }
        }
    }
    fn combine(
        &self,
        plan: &ShardPlan,
        mine: &[ValueRef],
    ) -> Result<(Option<Vec<Value>>, Traffic), String> {
        combine_results(&self.0, plan, mine, Results::Root)
    }
    fn gather(&self, mine: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        let root = self.0.process_at_rank(0);
        let len = mine.len() as Count;
        if self.rank() == 0 {
            let mut lens: Vec<Count> = vec![0; self.size()];
            root.gather_into_root(&len, &mut lens[..]);
            let lens: Vec<usize> = lens.iter().map(|&l| l as usize).collect();
            let (counts, displs) = layout(&lens);
            // Empty buffers would share Rust's dangling pointer, which Open MPI rejects as
            // aliasing: give both real (distinct) storage.
            let total: usize = lens.iter().sum();
            let mut flat = vec![0u8; total.max(1)];
            let one = [0u8; 1];
            let send = if mine.is_empty() {
                &one[..0]
            } else {
                &mine[..]
            };
            let mut recv = PartitionMut::new(&mut flat[..], counts, &displs[..]);
            root.gather_varcount_into_root(send, &mut recv);
            let mut out = Vec::with_capacity(lens.len());
            for (d, l) in displs.iter().zip(&lens) {
                out.push(flat[*d as usize..*d as usize + l].to_vec());
            }
            Some(out)
        } else {
            root.gather_into(&len);
            root.gather_varcount_into(&mine[..]);
            None
        }
    }
    fn barrier(&self) {
        self.0.barrier();
    }
}
