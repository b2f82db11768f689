//! A terminal's Es/N0 over time: constant (clear sky), a given series
//! (`esn0_schedule`, a measured trace or a CSV file), or clear sky less a
//! synthetic rain fade (`rain`, `rain_fade.rs`). Rain raises the noise
//! temperature too; the model subtracts the attenuation only.
//!
//! Two readers ask for it, each at times that never go back: the channel
//! as each frame is sent, and the ACM loop one loop delay behind.

use super::rain_fade::RainFade;
use crate::engine::SimTime;
use crate::net::schedule::Schedule;

#[derive(Debug)]
pub enum EsN0 {
    Constant(f64),
    Series { now: Schedule, reported: Schedule },
    Rain { clear_sky_db: f64, fade: RainFade },
}

impl EsN0 {
    /// A series of [time_s, Es/N0 dB] points, a step function.
    pub fn series(points: &[[f64; 2]]) -> EsN0 {
        EsN0::Series {
            now: Schedule::new(points),
            reported: Schedule::new(points),
        }
    }

    /// The Es/N0 of a frame sent at `t`, dB.
    pub fn at(&mut self, t: SimTime) -> f64 {
        match self {
            EsN0::Constant(v) => *v,
            EsN0::Series { now, .. } => now.at(t),
            EsN0::Rain { clear_sky_db, fade } => *clear_sky_db - fade.attenuation_db(t),
        }
    }

    /// The Es/N0 the terminal measured at `t` (the ACM loop's reader,
    /// behind `at`'s), dB; nothing before `t` is asked for again.
    pub fn measured(&mut self, t: SimTime) -> f64 {
        match self {
            EsN0::Constant(v) => *v,
            EsN0::Series { reported, .. } => reported.at(t),
            EsN0::Rain { clear_sky_db, fade } => {
                let v = *clear_sky_db - fade.attenuation_db(t);
                fade.forget_before(t);
                v
            }
        }
    }
}
