//! Nodes, links and static shortest-path routing. Chains, dumbbells and
//! stars are all just graphs here: routes are computed by breadth-first
//! search on hop count, ties broken by link order, so they are deterministic.

use super::packet::{LinkId, NodeId};
use std::collections::VecDeque;

pub struct Node {
    pub id: NodeId,
    pub name: String,
}

/// `next_hop[from][to]` is the link to take from `from` towards `to`.
pub struct RoutingTable {
    /// Row `from`, column `to`, in one block (one lookup per packet and
    /// hop: no row pointer to load first).
    next_hop: Vec<Option<LinkId>>,
    n_nodes: usize,
}

impl RoutingTable {
    /// `links` lists (from, to) of every link direction, indexed by LinkId.
    pub fn shortest_paths(n_nodes: usize, links: &[(NodeId, NodeId)]) -> RoutingTable {
        let mut out: Vec<Vec<(NodeId, LinkId)>> = vec![Vec::new(); n_nodes];
        for (id, &(a, b)) in links.iter().enumerate() {
            out[a as usize].push((b, id as LinkId));
        }
        let mut next_hop = vec![None; n_nodes * n_nodes];
        for src in 0..n_nodes {
            // BFS from src, remembering the first link of each path.
            let mut first: Vec<Option<LinkId>> = vec![None; n_nodes];
            let mut seen = vec![false; n_nodes];
            seen[src] = true;
            let mut q = VecDeque::new();
            for &(b, l) in &out[src] {
                if !seen[b as usize] {
                    seen[b as usize] = true;
                    first[b as usize] = Some(l);
                    q.push_back(b);
                }
            }
            while let Some(u) = q.pop_front() {
                for &(b, _) in &out[u as usize] {
                    if !seen[b as usize] {
                        seen[b as usize] = true;
                        first[b as usize] = first[u as usize];
                        q.push_back(b);
                    }
                }
            }
            next_hop[src * n_nodes..(src + 1) * n_nodes].copy_from_slice(&first);
        }
        RoutingTable { next_hop, n_nodes }
    }

    pub fn next_hop(&self, from: NodeId, to: NodeId) -> Option<LinkId> {
        debug_assert!((to as usize) < self.n_nodes);
        self.next_hop[from as usize * self.n_nodes + to as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_routes() {
        // 0 - 1 - 2, both directions: links 0:(0,1) 1:(1,0) 2:(1,2) 3:(2,1)
        let rt = RoutingTable::shortest_paths(3, &[(0, 1), (1, 0), (1, 2), (2, 1)]);
        assert_eq!(rt.next_hop(0, 2), Some(0));
        assert_eq!(rt.next_hop(1, 2), Some(2));
        assert_eq!(rt.next_hop(2, 0), Some(3));
        assert_eq!(rt.next_hop(1, 0), Some(1));
        assert_eq!(rt.next_hop(0, 0), None);
    }

    #[test]
    fn dumbbell_routes_through_bottleneck() {
        // s0,s1 - r0 - r1 - d0,d1 ; nodes s0=0 s1=1 r0=2 r1=3 d0=4 d1=5
        let pairs = [(0, 2), (1, 2), (2, 3), (3, 4), (3, 5)];
        let mut links = vec![];
        for (a, b) in pairs {
            links.push((a, b));
            links.push((b, a));
        }
        let rt = RoutingTable::shortest_paths(6, &links);
        let l = rt.next_hop(2, 5).unwrap();
        assert_eq!(links[l as usize], (2, 3));
        let l = rt.next_hop(4, 1).unwrap();
        assert_eq!(links[l as usize], (4, 3));
    }
}
