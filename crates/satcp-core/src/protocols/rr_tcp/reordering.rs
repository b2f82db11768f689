//! RR-TCP's reordering statistics: the last N reordering-length samples
//! and the percentile rule dupthresh = max(base, 1 + FA-quantile of L)
//! (the RR-TCP TR's example: 90 % of L <= 8 gives dupthresh 9).

use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Reordering {
    samples: VecDeque<u32>,
    capacity: usize,
    fa: f64,
    base: u32,
    max: u32,
    dupthresh: u32,
    /// The samples copied for `quantile` (kept, so that a sample does not
    /// allocate).
    scratch: Vec<u32>,
}

impl Reordering {
    pub fn new(fa: f64, capacity: usize, base: u32, max: u32) -> Reordering {
        Reordering {
            samples: VecDeque::new(),
            capacity: capacity.max(1),
            fa,
            base,
            max: max.max(base),
            dupthresh: base,
            scratch: Vec::new(),
        }
    }

    pub fn fa(&self) -> f64 {
        self.fa
    }

    pub fn set_fa(&mut self, fa: f64) {
        self.fa = fa;
        self.recompute();
    }

    pub fn dupthresh(&self) -> u32 {
        self.dupthresh
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// A reordering length; the oldest sample goes beyond the capacity.
    pub fn add_sample(&mut self, length: u32) {
        if self.samples.len() == self.capacity {
            self.samples.pop_front();
        }
        self.samples.push_back(length);
        self.recompute();
    }

    /// The smallest sample L such that at least a fraction `fa` of the
    /// samples are <= L (None without samples).
    pub fn quantile(&mut self) -> Option<u32> {
        if self.samples.is_empty() {
            return None;
        }
        let v = &mut self.scratch;
        v.clear();
        v.extend(self.samples.iter().copied());
        let n = v.len();
        let k = ((self.fa * n as f64) - 1e-9).ceil().clamp(1.0, n as f64) as usize;
        // The k-th smallest, without sorting the rest (a sort per sample
        // was 1.3 % of a TCP-R run).
        Some(*v.select_nth_unstable(k - 1).1)
    }

    fn recompute(&mut self) {
        let q = self.quantile().map_or(0, |q| q.saturating_add(1));
        self.dupthresh = q.max(self.base).min(self.max);
    }
}
