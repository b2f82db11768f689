//! The transfers an application measures, kept so that finding one and
//! asking whether all have ended cost the same however many there are.

use super::{ConnId, Transfer};
use crate::engine::SimTime;

/// An application's transfers, in the order it started them. Each has a
/// connection of its own, opened when it starts, and connection ids only
/// grow (`AppCtx::open`): the list is sorted by connection, and a notice
/// finds its transfer by binary search. The settled ones (ended, or given
/// up when their connection aborted) are counted as they settle. (Searched
/// and counted from the front at every notice, an FTP application of
/// 10,000 downloads ran about ten times slower per event than 10,000
/// applications of one download each.)
#[derive(Debug, Default)]
pub struct Transfers {
    list: Vec<Transfer>,
    /// Per transfer: given up before it ended (its connection aborted).
    aborted: Vec<bool>,
    settled: usize,
}

impl Transfers {
    pub fn push(&mut self, t: Transfer) {
        debug_assert!(
            self.list.last().is_none_or(|last| last.conn < t.conn),
            "transfers come in the order of their connections"
        );
        self.settled += t.end.is_some() as usize;
        self.list.push(t);
        self.aborted.push(false);
    }

    /// The index of the transfer on connection `conn`.
    pub fn index_of(&self, conn: ConnId) -> Option<usize> {
        let i = self.list.partition_point(|t| t.conn < conn);
        (self.list.get(i)?.conn == conn).then_some(i)
    }

    /// Transfer `i` ended at `at` (a later end replaces an earlier one;
    /// an aborted transfer may still end, and is not counted twice).
    pub fn set_end(&mut self, i: usize, at: SimTime) {
        let t = &mut self.list[i];
        self.settled += (t.end.is_none() && !self.aborted[i]) as usize;
        t.end = Some(at);
    }

    /// Transfer `i` is given up: true if that settles it (it had neither
    /// ended nor been aborted before).
    pub fn abort(&mut self, i: usize) -> bool {
        let settles = self.list[i].end.is_none() && !self.aborted[i];
        if settles {
            self.aborted[i] = true;
            self.settled += 1;
        }
        settles
    }

    pub fn is_aborted(&self, i: usize) -> bool {
        self.aborted[i]
    }

    /// How many transfers have ended or were aborted.
    pub fn settled(&self) -> usize {
        self.settled
    }

    /// Every transfer has ended or was aborted.
    pub fn all_settled(&self) -> bool {
        self.settled == self.list.len()
    }
}

/// Read access as a slice; ends are set only through `set_end` and aborts
/// through `abort`, which keep the count.
impl std::ops::Deref for Transfers {
    type Target = [Transfer];
    fn deref(&self) -> &[Transfer] {
        &self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn transfer(conn: ConnId) -> Transfer {
        Transfer {
            index: conn,
            conn,
            start: SimTime::ZERO,
            end: None,
            bytes: 1,
        }
    }

    proptest! {
        /// Against a linear search and a count from the front: the same
        /// index for every connection id (present or not), the same count
        /// after any sequence of ends and aborts.
        #[test]
        fn finds_and_counts_like_a_linear_scan(
            gaps in proptest::collection::vec(1u32..5, 0..60),
            marks in proptest::collection::vec((0usize..60, 0u64..100, proptest::bool::ANY), 0..80),
        ) {
            let mut t = Transfers::default();
            let mut conn = 0;
            for g in gaps {
                conn += g;
                t.push(transfer(conn));
            }
            for (i, at, abort) in marks {
                if i < t.len() {
                    if abort {
                        let unsettled = t[i].end.is_none() && !t.is_aborted(i);
                        prop_assert_eq!(t.abort(i), unsettled);
                    } else {
                        t.set_end(i, SimTime(at));
                    }
                }
            }
            for c in 0..=conn + 1 {
                prop_assert_eq!(t.index_of(c), t.iter().position(|x| x.conn == c));
            }
            let settled = (0..t.len()).filter(|&i| t[i].end.is_some() || t.is_aborted(i)).count();
            prop_assert_eq!(t.settled(), settled);
            prop_assert_eq!(t.all_settled(), settled == t.len());
        }
    }

    #[test]
    fn a_later_end_replaces_the_first_and_counts_once() {
        let mut t = Transfers::default();
        t.push(transfer(3));
        t.set_end(0, SimTime(5));
        t.set_end(0, SimTime(7));
        assert_eq!((t.settled(), t[0].end), (1, Some(SimTime(7))));
        assert_eq!(t.index_of(4), None);
    }
}
