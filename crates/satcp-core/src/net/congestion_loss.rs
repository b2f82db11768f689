//! Random "congestion" drops at the queue entrance (`congestion_loss`,
//! TCP-R paper Sec. 4.5): each data packet offered to a link direction's
//! queue is dropped with this probability, cause `EarlyDrop`, as if the
//! queue had chosen it. Pure ACKs pass. The draws come from their own
//! stream (`congestion/<link>/<dir>`), so turning it on leaves the error
//! model's draws alone.

use crate::engine::RngStream;

pub struct CongestionLoss {
    prob: f64,
    rng: RngStream,
}

impl CongestionLoss {
    /// None when `prob` is 0.
    pub fn new(prob: f64, rng: RngStream) -> Option<Box<CongestionLoss>> {
        (prob > 0.0).then(|| Box::new(CongestionLoss { prob, rng }))
    }

    /// Whether a packet offered to the queue is dropped.
    pub fn drops(&mut self, is_data: bool) -> bool {
        is_data && self.rng.bernoulli(self.prob)
    }
}
