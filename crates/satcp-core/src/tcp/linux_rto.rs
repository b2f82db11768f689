//! Linux's retransmission timeout (`rto_algorithm = "linux"`):
//! `tcp_rtt_estimator` and `tcp_set_rto` (net/ipv4/tcp_input.c),
//! `__tcp_set_rto` (include/net/tcp.h), read in Linux 6.x.
//!
//! Van Jacobson's estimator as Linux keeps it, in fixed point: srtt with
//! 3 fraction bits (gain 1/8), mdev = 4 x the mean deviation (gain 1/4,
//! but only 1/32 when the sample is below srtt: "This is similar to one
//! of Eifel findings"). Unlike RFC 6298, the deviation the RTO adds
//! (rttvar) is not the smoothed one: it follows the largest mdev seen in
//! the current round trip (mdev_max) up at once, and decays towards it by
//! a quarter of the difference once per round trip (when snd_una passes
//! the snd_nxt of the round's start), and neither mdev_max nor rttvar is
//! ever below the minimum RTO (TCP_RTO_MIN, 200 ms, `tcp_rto_min_us`).
//! RTO = srtt + rttvar: the minimum RTO acts on the deviation, so the
//! timeout is at least srtt + 200 ms, not at least 200 ms.
//!
//! What satcp keeps and what it does not: Linux counts microseconds and
//! then rounds the RTO up to jiffies (`usecs_to_jiffies`); satcp counts
//! nanoseconds with the same shifts, and rounds the RTO up to the timer
//! granularity G (`timer_granularity`, 1 ms in the `linux` profile: a
//! jiffy at HZ = 1000), which is where G enters this rule (RFC 6298 puts
//! it in the formula instead, `max(G, K x RTTVAR)`). The timer then fires
//! at that exact time, not at the next tick. Back-off (the RTO doubles at
//! each expiry, at most TCP_RTO_MAX, 120 s, reset by the next valid
//! sample) is shared with the RFC 6298 rule (`RttEstimator`).

/// Linux's estimator state, nanoseconds.
#[derive(Clone, Debug)]
pub struct LinuxRto {
    /// 8 x the smoothed RTT (Linux `srtt_us`); 0 before the first sample.
    srtt8: i64,
    /// 4 x the smoothed mean deviation (`mdev_us`).
    mdev4: i64,
    /// The largest mdev4 of the current round trip, at least the minimum
    /// RTO (`mdev_max_us`).
    mdev_max: i64,
    /// The deviation the RTO adds to srtt, at least the minimum RTO
    /// (`rttvar_us`).
    rttvar: i64,
    /// snd_nxt when the current round trip started (`rtt_seq`).
    rtt_seq: u64,
    /// The minimum RTO (TCP_RTO_MIN), the floor of mdev_max and rttvar.
    rto_min: i64,
}

impl LinuxRto {
    pub fn new(rto_min_ns: i64) -> LinuxRto {
        LinuxRto {
            srtt8: 0,
            mdev4: 0,
            mdev_max: 0,
            rttvar: 0,
            rtt_seq: 0,
            rto_min: rto_min_ns,
        }
    }

    /// A valid RTT sample of `m` ns, taken when snd_una (already moved by
    /// the ACK) and snd_nxt were as given.
    pub fn sample(&mut self, m: i64, snd_una: u64, snd_nxt: u64) {
        let mut m = m;
        let mut srtt = self.srtt8;
        if srtt != 0 {
            m -= srtt >> 3; // m is now the error of the estimate
            srtt += m; // srtt = 7/8 srtt + 1/8 new
            if m < 0 {
                m = -m - (self.mdev4 >> 2);
                // A falling RTT moves mdev with gain 1/32, not 1/4.
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= self.mdev4 >> 2;
            }
            self.mdev4 += m; // mdev = 3/4 mdev + 1/4 new
            if self.mdev4 > self.mdev_max {
                self.mdev_max = self.mdev4;
                if self.mdev_max > self.rttvar {
                    self.rttvar = self.mdev_max;
                }
            }
            // A round trip ended: rttvar decays towards this round's
            // largest deviation, and the next round starts.
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max = self.rto_min;
            }
        } else {
            // The first sample: RTO = 3 x RTT (mdev = 2 RTT), at least
            // RTT + the minimum RTO.
            srtt = m << 3;
            self.mdev4 = m << 1;
            self.rttvar = self.mdev4.max(self.rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
        }
        self.srtt8 = srtt.max(1);
    }

    /// The smoothed RTT, ns.
    pub fn srtt(&self) -> i64 {
        self.srtt8 >> 3
    }

    /// The deviation term of the RTO, ns.
    pub fn rttvar(&self) -> i64 {
        self.rttvar
    }

    /// RTO before back-off and before rounding to the clock, ns
    /// (`__tcp_set_rto`).
    pub fn rto(&self) -> i64 {
        (self.srtt8 >> 3) + self.rttvar
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    fn linux() -> LinuxRto {
        LinuxRto::new(200 * MS)
    }

    /// tcp_rtt_estimator, no previous measure: srtt = m, mdev = 2m, rttvar
    /// = max(mdev, rto_min): "make sure rto = 3*rtt".
    #[test]
    fn the_first_sample_gives_three_rtts() {
        let mut e = linux();
        e.sample(600 * MS, 1, 1001);
        assert_eq!(e.srtt(), 600 * MS);
        assert_eq!(e.rto(), 1800 * MS);
        // A short RTT: the minimum RTO is the deviation's floor.
        let mut e = linux();
        e.sample(10 * MS, 1, 1001);
        assert_eq!(e.rto(), 210 * MS);
    }

    /// The minimum RTO bounds the deviation, not the RTO: steady samples
    /// leave RTO = srtt + 200 ms (and 3 units: the decay by a quarter of
    /// the distance stops 3 above the floor, so Linux's `ss -i` shows
    /// rto:201 on a LAN once its µs are rounded up to jiffies).
    #[test]
    fn steady_samples_settle_at_srtt_plus_the_minimum() {
        let mut e = linux();
        let mut una = 1;
        for _ in 0..200 {
            una += 1000;
            e.sample(600 * MS, una, una + 1000);
        }
        assert_eq!(e.srtt(), 600 * MS);
        assert_eq!(e.rto(), 800 * MS + 3);
    }

    /// mdev_max is tracked per round: inside a round (snd_una not past
    /// rtt_seq) rttvar does not decay; when a round ends it moves a quarter
    /// of the way down to that round's largest deviation (at least the
    /// minimum RTO).
    #[test]
    fn rttvar_decays_only_once_per_round_trip() {
        let mut e = linux();
        // The first round: mdev_max starts at rttvar (1200 ms), so its end
        // leaves rttvar where it is. Steady samples shrink mdev by 3/4
        // each: below 200 ms after seven.
        e.sample(600 * MS, 1, 10_001);
        for una in (2_001..=10_001).step_by(1_000).chain([10_002]) {
            e.sample(600 * MS, una, 20_001);
            assert_eq!(e.rttvar(), 1200 * MS);
        }
        assert!(e.mdev4 < 200 * MS);
        // The second round: its largest deviation is the floor, 200 ms;
        // nothing moves until it ends.
        for una in [12_001, 20_001] {
            e.sample(600 * MS, una, 30_001);
            assert_eq!(e.rttvar(), 1200 * MS, "no decay inside the round");
        }
        e.sample(600 * MS, 20_002, 30_001);
        assert_eq!(e.rttvar(), 1200 * MS - (1200 * MS - 200 * MS) / 4);
    }

    /// A sample below srtt moves mdev with gain 1/32 (the Eifel-like rule),
    /// above it with gain 1/4.
    #[test]
    fn falling_rtts_move_the_deviation_slowly() {
        let mut up = linux();
        up.sample(600 * MS, 1, 1);
        up.sample(1000 * MS, 1, 1); // error +400: mdev4 += 400 - 1200/4
        assert_eq!(up.mdev4, 1200 * MS + 100 * MS);
        let mut down = linux();
        down.sample(600 * MS, 1, 1);
        down.sample(200 * MS, 1, 1); // error -400: (400 - 300) / 8
        assert_eq!(down.mdev4, 1200 * MS + ((100 * MS) >> 3));
    }

    /// A rise within the round raises rttvar at once.
    #[test]
    fn a_larger_deviation_raises_rttvar_at_once() {
        let mut e = linux();
        for una in 1..100 {
            e.sample(600 * MS, una * 1000, una * 1000 + 1000);
        }
        let before = e.rto();
        e.sample(2000 * MS, 100_000, 101_000);
        assert!(e.rto() > before + 300 * MS, "{} -> {}", before, e.rto());
    }
}
