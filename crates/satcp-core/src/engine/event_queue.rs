//! The future-event list: a binary min-heap ordered by (time, insertion
//! order). The insertion counter makes simultaneous events fire in the order
//! they were scheduled, which keeps runs deterministic.
//!
//! Each entry's order is one 128-bit key (time in the high half, rank in the
//! low half): the heap compares one integer instead of two fields. Keys are
//! unique, so the order of pops is fully determined by them, whatever the
//! heap's layout: any correct heap gives the same run.
//!
//! The heap is written out here rather than taken from `std`'s
//! `BinaryHeap`, whose `pop` first swaps the last entry into the root and
//! then reads it back: the entry is stored as four 8-byte words and
//! reloaded as two 16-byte ones, which the processor cannot forward from
//! its store buffer, and that stall was the single most expensive
//! instruction of the event loop (a quarter of its samples in `perf`).
//! Here the entry taken from the end stays in registers while the hole
//! walks down from the root; it is written once, where it belongs.

use super::time::SimTime;

/// Events are small `Copy` values (ids), so entries move by plain copies
/// while a hole travels through the heap.
#[derive(Clone, Copy)]
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

pub struct EventQueue<E> {
    /// A binary min-heap on `key`: heap[i] <= heap[2i+1], heap[2i+2].
    heap: Vec<Entry<E>>,
    next_seq: u64,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1024),
            next_seq: 0,
            popped: 0,
        }
    }

    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.reserve();
        self.push(key(time, seq), event);
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
        self.push(key(time, rank), event);
    }

    /// Adds an entry: a hole at the end moves up past every parent with a
    /// larger key, then the entry is written into it, once. Key and event
    /// come as separate values (in registers), not as an `Entry` built in
    /// memory by the caller and copied here (the same store-to-load stall).
    #[inline]
    fn push(&mut self, key: u128, event: E) {
        let entry = Entry { key, event };
        let h = &mut self.heap;
        let mut hole = h.len();
        h.push(entry);
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if h[parent].key <= key {
                break;
            }
            h[hole] = h[parent];
            hole = parent;
        }
        h[hole] = entry;
    }

    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let last = self.heap.pop()?;
        self.popped += 1;
        let Some(&root) = self.heap.first() else {
            return Some((time_of(last.key), last.event));
        };
        // The root leaves; `last` fills its place: the hole goes down along
        // the smaller children to a leaf, then back up while `last` is
        // smaller than the parent (usually not at all: the last entry is
        // among the latest). Fewer comparisons than sifting `last` down
        // from the root, and `last` is written once.
        let h = self.heap.as_mut_slice();
        let mut hole = 0;
        let mut child = 1;
        // Both children exist: one bounds check for the pair.
        while let Some(pair) = h.get(child..child + 2) {
            let smaller = child + (pair[1].key < pair[0].key) as usize;
            h[hole] = h[smaller];
            hole = smaller;
            child = 2 * hole + 1;
        }
        // A last lone child.
        if let Some(&c) = h.get(child) {
            h[hole] = c;
            hole = child;
        }
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if h[parent].key <= last.key {
                break;
            }
            h[hole] = h[parent];
            hole = parent;
        }
        h[hole] = last;
        Some((time_of(root.key), root.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(|e| time_of(e.key))
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
