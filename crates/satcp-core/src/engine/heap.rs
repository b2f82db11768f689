//! A binary min-heap of events keyed by unique 128-bit keys: the storage
//! of the future-event list (`event_queue.rs`).
//!
//! It is written out here rather than taken from `std`'s `BinaryHeap`,
//! whose `pop` first swaps the last entry into the root and then reads it
//! back: the entry is stored as four 8-byte words and reloaded as two
//! 16-byte ones, which the processor cannot forward from its store buffer,
//! and that stall was the single most expensive instruction of the event
//! loop (a quarter of its samples in `perf`). Here the entry taken from the
//! end stays in registers while the hole walks down from the root; it is
//! written once, where it belongs.

/// Events are small `Copy` values (ids), so entries move by plain copies
/// while a hole travels through the heap.
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

/// heap[i].key <= heap[2i+1].key, heap[2i+2].key, except that the root's
/// place may be vacant (`take_min`).
pub struct KeyedHeap<E> {
    heap: Vec<Entry<E>>,
    /// The root was handed out by `take_min` and its place is not filled
    /// yet: the next `push` fills it, anything else first restores the heap.
    vacant: bool,
}

impl<E: Copy> KeyedHeap<E> {
    pub fn with_capacity(n: usize) -> Self {
        KeyedHeap {
            heap: Vec::with_capacity(n),
            vacant: false,
        }
    }

    /// Adds an entry: a hole at the end moves up past every parent with a
    /// larger key, then the entry is written into it, once. Key and event
    /// come as separate values (in registers), not as an `Entry` built in
    /// memory by the caller and copied here (the same store-to-load stall).
    /// Always inlined, with `fill_root`: a call would take the entry by
    /// reference, built in memory (`event_list.rs`, which pushes here
    /// when it is long).
    #[inline(always)]
    pub fn push(&mut self, key: u128, event: E) {
        let entry = Entry { key, event };
        if self.vacant {
            self.vacant = false;
            self.fill_root(entry);
            return;
        }
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

    /// The smallest key.
    #[inline]
    pub fn peek_key(&mut self) -> Option<u128> {
        self.settle();
        self.heap.first().map(|e| e.key)
    }

    /// Removes the entry with the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<(u128, E)> {
        let min = self.take_min();
        self.settle();
        min
    }

    /// Removes the entry with the smallest key and leaves its place vacant
    /// until the next call: the event loop takes an event and, handling
    /// it, mostly schedules the next one at once, which then drops into
    /// the root's place and sifts down (one walk) instead of the heap
    /// closing the gap (a walk down and up) and the new entry climbing up
    /// from the end (another walk).
    #[inline]
    pub fn take_min(&mut self) -> Option<(u128, E)> {
        self.settle();
        let root = *self.heap.first()?;
        self.vacant = true;
        Some((root.key, root.event))
    }

    /// Sifts `entry` down from the (vacant) root to its place.
    #[inline(always)]
    fn fill_root(&mut self, entry: Entry<E>) {
        let h = self.heap.as_mut_slice();
        let n = h.len();
        let mut hole = 0;
        let mut child = 1;
        while child < n {
            let c = if child + 1 < n && h[child + 1].key < h[child].key {
                child + 1
            } else {
                child
            };
            if entry.key < h[c].key {
                break;
            }
            h[hole] = h[c];
            hole = c;
            child = 2 * hole + 1;
        }
        h[hole] = entry;
    }

    /// Closes the gap a `take_min` left, if any.
    #[inline]
    fn settle(&mut self) {
        if !self.vacant {
            return;
        }
        self.vacant = false;
        let last = self.heap.pop().expect("a vacant root is an entry");
        if self.heap.is_empty() {
            // The vacant root was the last entry.
            return;
        }
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
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.vacant as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn pops_like_a_sorted_list(
            ops in proptest::collection::vec((0u128..60, 0u8..4), 0..400)
        ) {
            // Pushes, eager pops, lazy pops (`take_min`) and peeks mixed.
            let mut h = KeyedHeap::with_capacity(4);
            let mut model: Vec<u128> = Vec::new();
            for (i, (k, op)) in ops.into_iter().enumerate() {
                model.sort();
                match op {
                    0 | 1 => {
                        let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                        let got = if op == 0 { h.pop() } else { h.take_min() };
                        prop_assert_eq!(got.map(|(k, _)| k), want);
                    }
                    2 => prop_assert_eq!(h.peek_key(), model.first().copied()),
                    _ => {
                        // Unique keys, as the event list makes them.
                        let key = (k << 32) | i as u128;
                        h.push(key, i);
                        model.push(key);
                    }
                }
                prop_assert_eq!(h.len(), model.len());
            }
        }
    }
}
