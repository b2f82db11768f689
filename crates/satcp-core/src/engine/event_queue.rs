//! The future-event list: a binary min-heap ordered by (time, insertion
//! order). The insertion counter makes simultaneous events fire in the order
//! they were scheduled, which keeps runs deterministic.
//!
//! Each entry's order is one 128-bit key (time in the high half, rank in the
//! low half): the heap compares one integer instead of two fields. Keys are
//! unique, so the order of pops is fully determined by them.

use super::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    key: u128,
    event: E,
}

fn key(time: SimTime, seq: u64) -> u128 {
    ((time.0 as u128) << 64) | seq as u128
}

fn time_of(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            popped: 0,
        }
    }

    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.reserve();
        self.heap.push(Entry {
            key: key(time, seq),
            event,
        });
    }

    /// The insertion rank the next scheduled event would get, taken now:
    /// a caller that holds events in its own FIFO (a link's packets in
    /// propagation) schedules each later with `schedule_ranked`, and they
    /// fire exactly where they would have had they been scheduled now.
    pub fn reserve(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    pub fn schedule_ranked(&mut self, time: SimTime, rank: u64, event: E) {
        debug_assert!(rank < self.next_seq);
        self.heap.push(Entry {
            key: key(time, rank),
            event,
        });
    }

    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((time_of(e.key), e.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| time_of(e.key))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events handed out so far: the "simulated events" of the benchmark.
    pub fn events_popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn pops_in_time_then_fifo_order(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(SimTime(*t), i);
            }
            let mut last: Option<(SimTime, usize)> = None;
            let mut n = 0;
            while let Some((t, i)) = q.pop() {
                prop_assert_eq!(SimTime(times[i]), t);
                if let Some((lt, li)) = last {
                    prop_assert!(lt < t || (lt == t && li < i));
                }
                last = Some((t, i));
                n += 1;
            }
            prop_assert_eq!(n, times.len());
        }

        #[test]
        fn pops_like_a_sorted_list_when_pushes_and_pops_mix(
            ops in proptest::collection::vec((0u64..40, proptest::bool::ANY), 0..400)
        ) {
            // Model: every (time, rank) scheduled, popped smallest first.
            let mut q = EventQueue::new();
            let mut model: Vec<(u64, u64)> = Vec::new();
            let mut now = 0;
            for (dt, pop) in ops {
                if pop {
                    model.sort();
                    let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                    let got = q.pop().map(|(t, rank)| (t.0, rank));
                    prop_assert_eq!(got, want);
                    if let Some((t, _)) = got {
                        now = t;
                    }
                } else {
                    let rank = q.reserve();
                    q.schedule_ranked(SimTime(now + dt), rank, rank);
                    model.push((now + dt, rank));
                }
            }
            prop_assert_eq!(q.len(), model.len());
        }
    }
}
