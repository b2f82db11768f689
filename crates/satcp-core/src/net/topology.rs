//! Nodes, links and static shortest-path routing. Chains, dumbbells and
//! stars are all just graphs here: routes are computed by breadth-first
//! search on hop count, ties broken by link order, so they are deterministic.

use super::packet::{LinkId, NodeId};
use std::collections::VecDeque;

pub struct Node {
    pub id: NodeId,
    pub name: String,
}

/// The link to take from each node towards each other node.
///
/// A node whose links all lead to one neighbour (a host on its access
/// link, a terminal of a beam) sends everything through its first link
/// to it; only the others keep a row of next hops. A beam of thousands
/// of terminals then needs a few rows, not one per terminal (a full
/// table grew with the square of the nodes: 72 MB and most of the
/// set-up time at 3,000 terminals).
pub struct RoutingTable {
    route: Vec<NodeRoute>,
    /// The rows, one block (one lookup per packet and hop: no row pointer
    /// to load first).
    rows: Vec<Option<LinkId>>,
    /// Each node's connected component: a one-neighbour node reaches the
    /// nodes of its own.
    component: Vec<u32>,
    n_nodes: usize,
}

#[derive(Clone, Copy)]
enum NodeRoute {
    /// Its row starts at this index of `rows`.
    Row(usize),
    /// Its only way out.
    Only(LinkId),
}

impl RoutingTable {
    /// `links` lists (from, to) of every link direction, indexed by LinkId.
    /// Routes follow the fewest hops, ties broken by link order.
    pub fn shortest_paths(n_nodes: usize, links: &[(NodeId, NodeId)]) -> RoutingTable {
        let mut out: Vec<Vec<(NodeId, LinkId)>> = vec![Vec::new(); n_nodes];
        for (id, &(a, b)) in links.iter().enumerate() {
            out[a as usize].push((b, id as LinkId));
        }
        // The shortcut needs every link direction's reverse: then a node
        // with one neighbour reaches through it exactly its component.
        let symmetric = {
            let mut ab: Vec<(NodeId, NodeId)> = links.to_vec();
            let mut ba: Vec<(NodeId, NodeId)> = links.iter().map(|&(a, b)| (b, a)).collect();
            ab.sort_unstable();
            ba.sort_unstable();
            ab == ba
        };
        let component = components(n_nodes, &out);
        let mut route = Vec::with_capacity(n_nodes);
        let mut rows = Vec::new();
        for (src, outs) in out.iter().enumerate() {
            if let (true, Some(&(b, l))) = (symmetric, outs.first()) {
                if outs.iter().all(|&(c, _)| c == b) {
                    route.push(NodeRoute::Only(l));
                    continue;
                }
            }
            route.push(NodeRoute::Row(rows.len()));
            rows.extend(first_links(src, &out));
        }
        RoutingTable {
            route,
            rows,
            component,
            n_nodes,
        }
    }

    #[inline]
    pub fn next_hop(&self, from: NodeId, to: NodeId) -> Option<LinkId> {
        debug_assert!((to as usize) < self.n_nodes);
        match self.route[from as usize] {
            NodeRoute::Row(at) => self.rows[at + to as usize],
            NodeRoute::Only(l) => (from != to
                && self.component[from as usize] == self.component[to as usize])
                .then_some(l),
        }
    }
}

/// Breadth-first search from `src`: the first link of the path to each
/// node (None for `src` and the nodes it does not reach).
fn first_links(src: usize, out: &[Vec<(NodeId, LinkId)>]) -> Vec<Option<LinkId>> {
    let n = out.len();
    let mut first: Vec<Option<LinkId>> = vec![None; n];
    let mut seen = vec![false; n];
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
    first
}

/// The connected components (over links taken either way).
fn components(n: usize, out: &[Vec<(NodeId, LinkId)>]) -> Vec<u32> {
    let mut near: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, outs) in out.iter().enumerate() {
        for &(b, _) in outs {
            near[a].push(b as usize);
            near[b as usize].push(a);
        }
    }
    let mut component = vec![u32::MAX; n];
    for start in 0..n {
        if component[start] != u32::MAX {
            continue;
        }
        component[start] = start as u32;
        let mut stack = vec![start];
        while let Some(u) = stack.pop() {
            for &v in &near[u] {
                if component[v] == u32::MAX {
                    component[v] = start as u32;
                    stack.push(v);
                }
            }
        }
    }
    component
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

    /// Every next hop, by a search from every node (the table before
    /// one-neighbour nodes shared their neighbour's reach).
    fn full_table(n: usize, links: &[(NodeId, NodeId)]) -> Vec<Vec<Option<LinkId>>> {
        let mut out: Vec<Vec<(NodeId, LinkId)>> = vec![Vec::new(); n];
        for (id, &(a, b)) in links.iter().enumerate() {
            out[a as usize].push((b, id as LinkId));
        }
        (0..n).map(|src| first_links(src, &out)).collect()
    }

    fn same_as_full_table(n: usize, links: &[(NodeId, NodeId)]) {
        let rt = RoutingTable::shortest_paths(n, links);
        let full = full_table(n, links);
        for (a, row) in full.iter().enumerate() {
            for (b, &hop) in row.iter().enumerate() {
                assert_eq!(rt.next_hop(a as NodeId, b as NodeId), hop, "{a} -> {b}");
            }
        }
    }

    #[test]
    fn a_star_keeps_one_row() {
        // A hub (0) and 50 leaves, each joined by two parallel links: a
        // leaf takes its first.
        let mut links = vec![];
        for leaf in 1..=50 {
            for _ in 0..2 {
                links.push((0, leaf));
                links.push((leaf, 0));
            }
        }
        let rt = RoutingTable::shortest_paths(51, &links);
        assert_eq!(rt.rows.len(), 51);
        assert_eq!(
            rt.next_hop(7, 30),
            Some(links.iter().position(|&l| l == (7, 0)).unwrap() as LinkId)
        );
        same_as_full_table(51, &links);
    }

    #[test]
    fn a_leaf_reaches_only_its_component() {
        // 0 - 1 - 2 and, apart, 3 - 4.
        let links = [(0, 1), (1, 0), (1, 2), (2, 1), (3, 4), (4, 3)];
        let rt = RoutingTable::shortest_paths(5, &links);
        assert_eq!(rt.next_hop(0, 2), Some(0));
        assert_eq!(rt.next_hop(0, 4), None);
        assert_eq!(rt.next_hop(3, 4), Some(4));
        assert_eq!(rt.next_hop(3, 3), None);
        same_as_full_table(5, &links);
    }

    proptest::proptest! {
        /// Random graphs, links in pairs or not, parallel links and loops
        /// to nowhere: the same next hops as a search from every node.
        #[test]
        fn same_routes_as_a_search_from_every_node(
            n in 1usize..12,
            edges in proptest::collection::vec((0u32..12, 0u32..12, proptest::bool::ANY), 0..30),
        ) {
            let mut links = vec![];
            for (a, b, both) in edges {
                let (a, b) = (a % n as u32, b % n as u32);
                if a == b {
                    continue;
                }
                links.push((a, b));
                if both {
                    links.push((b, a));
                }
            }
            same_as_full_table(n, &links);
            let paired: Vec<_> = links.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
            same_as_full_table(n, &paired);
        }
    }
}
