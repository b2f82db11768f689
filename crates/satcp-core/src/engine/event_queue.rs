//! The future-event list: events ordered by (time, insertion order). The
//! insertion counter makes simultaneous events fire in the order they were
//! scheduled, which keeps runs deterministic.
//!
//! Each event's order is one 128-bit key (time in the high half, rank in
//! the low half): the structures compare one integer instead of two
//! fields. Keys are unique, so the order of pops is fully determined by
//! them, whatever the storage: any correct priority queue gives the same
//! run.
//!
//! The events are kept in two structures, one key space: the timers
//! (`schedule_timer`: wake-ups that are many, one per endpoint or
//! application, and mostly far ahead) in a calendar queue
//! (`TimerCalendar`), and all others (`schedule`: the events that move
//! packets, a few per link, due soon) in a short sorted list
//! (`EventList`, a heap if it ever grows long). A pop takes the smaller of
//! the two first keys, so the order is exactly that of one heap; but the
//! packet events, most of the events, are found among a few entries
//! instead of in a heap as deep as the thousands of timers of a many-flow
//! run (with 1,000 flows, the pop was a fifth of the run time, most of it
//! cache misses on the way down), and a timer is found in its bucket
//! instead of at the end of a dozen such misses.

use super::event_list::EventList;
use super::time::SimTime;
use super::timer_calendar::TimerCalendar;

fn key(time: SimTime, seq: u64) -> u128 {
    ((time.0 as u128) << 64) | seq as u128
}

fn time_of(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

pub struct EventQueue<E> {
    events: EventList<E>,
    timers: TimerCalendar<E>,
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
            events: EventList::new(),
            timers: TimerCalendar::new(),
            next_seq: 0,
            popped: 0,
        }
    }

    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.reserve();
        self.events.push(key(time, seq), event);
    }

    /// Schedules a timer: the same order as `schedule`, kept apart
    /// (module docs).
    pub fn schedule_timer(&mut self, time: SimTime, event: E) {
        let seq = self.reserve();
        self.timers.push(key(time, seq), event);
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
        self.events.push(key(time, rank), event);
    }

    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_until(SimTime(u64::MAX))
    }

    /// Removes the next event if it is due at or before `limit` (else
    /// leaves it queued): the event loop's one look at the two structures per
    /// event, where a peek and then a pop looked twice.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        let (from_timers, key) = match (self.events.peek_key(), self.timers.peek_key()) {
            (Some(e), Some(t)) if t < e => (true, t),
            (Some(e), _) => (false, e),
            (None, Some(t)) => (true, t),
            (None, None) => return None,
        };
        if time_of(key) > limit {
            return None;
        }
        let (key, event) = if from_timers {
            self.timers.pop()?
        } else {
            self.events.take_min()?
        };
        self.popped += 1;
        Some((time_of(key), event))
    }

    pub fn len(&self) -> usize {
        self.events.len() + self.timers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty() && self.timers.is_empty()
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
                // Timers and other events in one order.
                if i % 2 == 0 {
                    q.schedule(SimTime(*t), i);
                } else {
                    q.schedule_timer(SimTime(*t), i);
                }
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
                } else if dt % 3 == 0 {
                    // A timer: its own structure, the same order.
                    let rank = q.next_seq;
                    q.schedule_timer(SimTime(now + dt), rank);
                    model.push((now + dt, rank));
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
