//! The superframe's slots: `slots` of them over `carriers` MF-TDMA
//! carriers, slot s on carrier s mod carriers in time column
//! s / carriers, the columns dividing the superframe equally. The last
//! `random_access_slots` slots are random access, the others dedicated.
//! Superframe k starts at k superframes from time zero (the terminals are
//! synchronised to the network's clock; the propagation delay is the
//! link's, after the burst).

use super::Dvbrcs2Config;
use crate::engine::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlotPlan {
    pub superframe_ns: u64,
    pub slots: u32,
    pub carriers: u32,
    pub random_access_slots: u32,
    /// The bytes a slot carries.
    pub slot_bytes: u32,
}

impl SlotPlan {
    pub fn new(c: &Dvbrcs2Config) -> SlotPlan {
        let superframe_ns = (c.superframe_s * 1e9).round() as u64;
        let columns = c.slots.div_ceil(c.carriers.max(1)).max(1);
        let slot_bytes = match (c.slot_payload_bytes, c.burst_rate_bps) {
            (Some(b), _) => b,
            (None, Some(rate)) => (rate * c.superframe_s / columns as f64 / 8.0).floor() as u32,
            (None, None) => 0,
        };
        SlotPlan {
            superframe_ns,
            slots: c.slots,
            carriers: c.carriers.max(1),
            random_access_slots: c.random_access_slots,
            slot_bytes,
        }
    }

    /// Time columns per superframe.
    pub fn columns(&self) -> u32 {
        self.slots.div_ceil(self.carriers)
    }

    pub fn dama_slots(&self) -> u32 {
        self.slots - self.random_access_slots
    }

    /// When superframe `k` starts.
    pub fn start(&self, k: u64) -> SimTime {
        SimTime(k * self.superframe_ns)
    }

    /// When slot `s` of superframe `k` ends (its burst received whole).
    pub fn slot_end(&self, k: u64, s: u32) -> SimTime {
        let column = u64::from(s / self.carriers) + 1;
        SimTime(k * self.superframe_ns + column * self.superframe_ns / u64::from(self.columns()))
    }

    /// The index of the superframe under way at `t` (the last started).
    pub fn superframe_at(&self, t: SimTime) -> u64 {
        t.0 / self.superframe_ns
    }

    /// Slots per superframe (a fraction) that carry `rate_bps`.
    pub fn slots_for_rate(&self, rate_bps: f64) -> f64 {
        rate_bps * self.superframe_ns as f64 / 1e9 / 8.0 / self.slot_bytes as f64
    }

    /// The time a slot's share of the superframe is, ns (for the busy
    /// time: a slot used counts its column over the carriers).
    pub fn slot_share_ns(&self) -> u64 {
        self.superframe_ns / u64::from(self.slots)
    }
}

#[cfg(test)]
mod tests {
    use crate::net::dvbrcs2::tests::parse;
    use serde_json::json;

    /// 10 slots over 2 carriers in 0.1 s: 5 columns of 20 ms; slots 0 and
    /// 1 end at 20 ms, 8 and 9 at 100 ms; superframe 3's slot 0 at 320 ms.
    #[test]
    fn slots_end_at_their_column() {
        let p = parse(json!({"carriers": 2, "random_access_slots": 4}))
            .unwrap()
            .plan();
        let ms = |k, s| p.slot_end(k, s).0 / 1_000_000;
        assert_eq!([ms(0, 0), ms(0, 1), ms(0, 8), ms(0, 9)], [20, 20, 100, 100]);
        assert_eq!(ms(3, 0), 320);
        assert_eq!(p.dama_slots(), 6);
        // 8 kb/s is 1 slot of 100 bytes per 0.1 s.
        assert!((p.slots_for_rate(8e3) - 1.0).abs() < 1e-12);
    }
}
