//! The scenario's nodes and links as a graph, built once per check: which
//! nodes exist, whether two are connected, and the smallest propagation
//! delay between them. A beam of thousands of terminals has thousands of
//! nodes, links and applications, so a check per application must not
//! walk every node and link (it did: validating a 200-terminal beam took
//! seconds).

use super::config::{LinkConfig, Scenario};
use crate::error::MAX_DELAY_S;
use crate::net::packet::NodeId;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::rc::Rc;

/// Node ids by name: the position in `nodes` of the first node of that
/// name (a beam names thousands, in every link, application and carrier
/// terminal, so a search of the list per name is quadratic).
pub struct NodeIndex<'a>(HashMap<&'a str, usize>);

impl<'a> NodeIndex<'a> {
    pub fn new(s: &'a Scenario) -> NodeIndex<'a> {
        let mut ids = HashMap::with_capacity(s.nodes.len());
        for (i, n) in s.nodes.iter().enumerate() {
            ids.entry(n.as_str()).or_insert(i);
        }
        NodeIndex(ids)
    }

    pub fn get(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }

    /// The id of a node of a validated scenario.
    pub fn of(&self, name: &str) -> NodeId {
        self.get(name).expect("validated") as NodeId
    }
}

pub struct NodeGraph<'a> {
    index: NodeIndex<'a>,
    /// Per node: (neighbour, the link's smallest one-way delay).
    adjacent: Vec<Vec<(usize, f64)>>,
    /// The delays from each node asked about so far to every node: the
    /// applications of a scenario share few servers, so one search per
    /// server serves them all.
    from: RefCell<HashMap<usize, Rc<Vec<f64>>>>,
}

impl<'a> NodeGraph<'a> {
    pub fn new(s: &'a Scenario) -> NodeGraph<'a> {
        let index = NodeIndex::new(s);
        let mut adjacent = vec![Vec::new(); s.nodes.len()];
        for l in &s.links {
            if let (Some(a), Some(b)) = (index.get(&l.a), index.get(&l.b)) {
                let d = smallest_delay(l);
                adjacent[a].push((b, d));
                adjacent[b].push((a, d));
            }
        }
        NodeGraph {
            index,
            adjacent,
            from: RefCell::default(),
        }
    }

    pub fn has(&self, node: &str) -> bool {
        self.index.get(node).is_some()
    }

    /// Whether a path of links joins `a` and `b`.
    pub fn connected(&self, a: &str, b: &str) -> bool {
        self.shortest_delay(a, b).is_some()
    }

    /// The smallest sum of the links' smallest one-way delays between `a`
    /// and `b`, None if no path joins them.
    pub fn shortest_delay(&self, a: &str, b: &str) -> Option<f64> {
        let (a, b) = (self.index.get(a)?, self.index.get(b)?);
        let d = self.delays_from(b)[a];
        d.is_finite().then_some(d)
    }

    /// Dijkstra from `source` to every node (infinite: unreachable), once
    /// per source.
    fn delays_from(&self, source: usize) -> Rc<Vec<f64>> {
        if let Some(d) = self.from.borrow().get(&source) {
            return d.clone();
        }
        let mut best = vec![f64::INFINITY; self.adjacent.len()];
        let mut heap = BinaryHeap::new();
        best[source] = 0.0;
        heap.push(Near(0.0, source));
        while let Some(Near(d, n)) = heap.pop() {
            if d > best[n] {
                continue;
            }
            for &(m, w) in &self.adjacent[n] {
                let nd = d + w;
                if nd < best[m] {
                    best[m] = nd;
                    heap.push(Near(nd, m));
                }
            }
        }
        let best = Rc::new(best);
        self.from.borrow_mut().insert(source, best.clone());
        best
    }
}

/// A link's smallest one-way delay in either direction, schedules
/// included.
fn smallest_delay(l: &LinkConfig) -> f64 {
    [&l.ab, &l.ba]
        .iter()
        .flat_map(|d| {
            let points = d.delay_schedule.iter().flatten().map(|p| p[1]);
            points.chain([d.delay_s])
        })
        .fold(MAX_DELAY_S, f64::min)
}

/// A heap entry, nearest first.
struct Near(f64, usize);

impl PartialEq for Near {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Near {}
impl PartialOrd for Near {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Near {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse;

    /// a -1 ms- b -2 ms- c, and a -10 ms- c whose schedule falls to 2 ms;
    /// d stands alone.
    fn scenario() -> Scenario {
        parse(
            r#"{"nodes": ["a", "b", "c", "d"],
                "links": [
                  {"a": "a", "b": "b", "rate_bps": 1e6, "delay_s": 0.001},
                  {"a": "b", "b": "c", "rate_bps": 1e6, "delay_s": 0.002},
                  {"a": "a", "b": "c", "rate_bps": 1e6, "delay_s": 0.010,
                   "ba": {"delay_schedule": [[0.0, 0.010], [5.0, 0.0025]]}}],
                "apps": [{"kind": "bulk", "client": "a", "server": "c"}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn the_smallest_delay_takes_the_shortest_path_and_each_link_at_its_least() {
        let s = scenario();
        let g = NodeGraph::new(&s);
        // a-b-c: 3 ms; a-c directly: 2.5 ms at its schedule's lowest.
        assert_eq!(g.shortest_delay("a", "c"), Some(0.0025));
        assert_eq!(g.shortest_delay("c", "b"), Some(0.002));
        assert_eq!(g.shortest_delay("a", "a"), Some(0.0));
    }

    #[test]
    fn nodes_without_links_are_not_connected() {
        let s = scenario();
        let g = NodeGraph::new(&s);
        assert!(g.has("d") && !g.has("e"));
        assert!(g.connected("a", "c"));
        assert!(!g.connected("a", "d"));
        assert_eq!(g.shortest_delay("a", "e"), None);
    }
}
