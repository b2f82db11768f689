//! Adaptive coding and modulation: the gateway picks, for each frame, the
//! most efficient MODCOD whose ideal Es/N0 is at most the terminal's
//! Es/N0 less a margin, as the terminal measured it one loop delay ago
//! (the report's trip over the return path, and the frame's down). If
//! none qualifies, the most robust MODCOD of the set is sent (its frames
//! then fail if the channel is that bad).
//!
//! A frame is received (quasi error free) when the Es/N0 as it is sent is
//! at least its MODCOD's ideal Es/N0, and lost whole otherwise: a step
//! function at the threshold of the standard's table. The LDPC codes'
//! waterfall is that steep: from QEF to a lost frame in a few tenths of
//! a dB (docs/satellite-access.md).

use super::modcod::Modcod;

#[derive(Debug)]
pub struct Acm {
    /// The MODCODs allowed, most efficient first (for equal efficiency,
    /// the one that needs less Es/N0 first).
    modcods: Vec<(&'static Modcod, f64)>,
    margin_db: f64,
}

impl Acm {
    /// `modcods` with their spectral efficiency on this carrier (frame
    /// size and pilots counted); not empty.
    pub fn new(mut modcods: Vec<(&'static Modcod, f64)>, margin_db: f64) -> Acm {
        assert!(!modcods.is_empty(), "validated: at least one MODCOD");
        modcods.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then(a.0.esn0_db.total_cmp(&b.0.esn0_db))
        });
        Acm { modcods, margin_db }
    }

    /// The MODCOD for a frame, given the Es/N0 measured one loop delay
    /// ago, dB.
    pub fn choose(&self, measured_db: f64) -> &'static Modcod {
        let usable = measured_db - self.margin_db;
        self.modcods
            .iter()
            .find(|(m, _)| m.esn0_db <= usable)
            .map(|(m, _)| *m)
            .unwrap_or_else(|| self.most_robust())
    }

    fn most_robust(&self) -> &'static Modcod {
        self.modcods
            .iter()
            .min_by(|a, b| a.0.esn0_db.total_cmp(&b.0.esn0_db))
            .expect("at least one")
            .0
    }
}

/// Whether a frame of MODCOD `m` is received at Es/N0 `esn0_db`.
pub fn received(m: &Modcod, esn0_db: f64) -> bool {
    esn0_db >= m.esn0_db
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::dvbs2::framing::FrameSize;
    use crate::net::dvbs2::modcod::{by_name, Standard, TABLE};

    fn s2_acm(margin_db: f64) -> Acm {
        let set = TABLE
            .iter()
            .filter(|m| m.standard == Standard::S2)
            .map(|m| (m, m.table_efficiency))
            .collect();
        Acm::new(set, margin_db)
    }

    #[test]
    fn the_most_efficient_modcod_within_the_margin() {
        let acm = s2_acm(1.0);
        // 8PSK 3/4 needs 7.91 dB: 8.91 measured with 1 dB of margin is
        // exactly enough; 16APSK 2/3 (8.97, more efficient) is not.
        assert_eq!(acm.choose(8.91).name, "8PSK 3/4");
        assert_eq!(acm.choose(8.909).name, "8PSK 2/3");
        // 8PSK 3/5 (5.50, 1.78 b/sym) loses to QPSK 9/10 (6.42, 1.79) only
        // when both fit: at 6.5 + 1, QPSK 9/10.
        assert_eq!(acm.choose(7.5).name, "QPSK 9/10");
        assert_eq!(acm.choose(6.6).name, "8PSK 3/5");
        // Above the top threshold, the top MODCOD; below the bottom one,
        // the most robust.
        assert_eq!(acm.choose(30.0).name, "32APSK 9/10");
        assert_eq!(acm.choose(-10.0).name, "QPSK 1/4");
        // Without margin, the table's thresholds themselves.
        let bare = s2_acm(0.0);
        for m in TABLE.iter().filter(|m| m.standard == Standard::S2) {
            let chosen = bare.choose(m.esn0_db);
            assert!(chosen.table_efficiency >= m.table_efficiency, "{}", m.name);
            assert!(chosen.esn0_db <= m.esn0_db, "{}", m.name);
        }
    }

    #[test]
    fn of_two_equally_efficient_modcods_the_one_needing_less() {
        let set = ["16APSK 3/5", "16APSK 3/5-L"]
            .iter()
            .map(|n| {
                let m = by_name(n).unwrap();
                (m, FrameSize::Normal.kbch(m).unwrap() as f64)
            })
            .collect();
        assert_eq!(Acm::new(set, 0.0).choose(8.0).name, "16APSK 3/5-L");
    }

    #[test]
    fn frame_errors_start_exactly_below_the_threshold() {
        let m = by_name("QPSK 1/2").unwrap();
        assert!(received(m, 1.00));
        assert!(!received(m, 0.999_999));
        assert!(received(m, 1.5));
    }
}
