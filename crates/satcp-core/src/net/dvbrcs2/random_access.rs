//! Random access in a frame of slots: slotted ALOHA (one copy of each
//! burst) and CRDSA (Casini, De Gaudenzi, del Rio Herrero, IEEE Trans.
//! Wireless Commun. 6(4), 2007: two or three replicas of each burst in
//! distinct slots of the frame, resolved by successive interference
//! cancellation). The channel is the collision channel: a slot holding
//! exactly one (not yet cancelled) burst decodes it; two or more bursts
//! in a slot decode none of them (no capture effect). CRDSA's receiver
//! then cancels every replica of a decoded burst, which may leave another
//! slot with a single burst, and so on until no slot holds exactly one.
//! With one replica this is slotted ALOHA (cancelling a burst's only copy
//! frees no other slot).

use crate::engine::RngStream;

/// Which bursts of a frame of `slots` slots are decoded: `bursts[i]` lists
/// the slots of burst i's replicas (distinct, each below `slots`).
/// `scratch` keeps its buffers from one frame to the next.
pub fn resolve(slots: usize, bursts: &[Vec<u16>], scratch: &mut Scratch) -> Vec<bool> {
    let Scratch { count, members } = scratch;
    count.clear();
    count.resize(slots, 0);
    // Each slot's bursts, XOR-ed: with one burst left it is that burst.
    members.clear();
    members.resize(slots, 0);
    for (i, b) in bursts.iter().enumerate() {
        for &s in b {
            count[s as usize] += 1;
            members[s as usize] ^= i;
        }
    }
    let mut decoded = vec![false; bursts.len()];
    let mut clean: Vec<usize> = (0..slots).filter(|&s| count[s] == 1).collect();
    while let Some(s) = clean.pop() {
        if count[s] != 1 {
            continue;
        }
        let i = members[s];
        decoded[i] = true;
        // Cancel its replicas everywhere.
        for &r in &bursts[i] {
            let r = r as usize;
            count[r] -= 1;
            members[r] ^= i;
            if count[r] == 1 {
                clean.push(r);
            }
        }
    }
    decoded
}

/// Buffers `resolve` reuses.
#[derive(Debug, Default)]
pub struct Scratch {
    count: Vec<u32>,
    members: Vec<usize>,
}

/// Draws `n` distinct slots out of `slots` (a partial Fisher-Yates
/// shuffle of `pool`, which keeps the permutation between calls).
pub fn draw_slots(rng: &mut RngStream, slots: usize, n: usize, pool: &mut Vec<u16>) -> Vec<u16> {
    if pool.len() != slots {
        *pool = (0..slots as u16).collect();
    }
    let n = n.min(slots);
    for k in 0..n {
        let j = k + (rng.next_u64() % (slots - k) as u64) as usize;
        pool.swap(k, j);
    }
    pool[..n].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offers a load `g` (bursts per slot, Poisson-like: each of `frames`
    /// frames of `slots` slots gets round(g slots) bursts from distinct
    /// terminals) with `replicas` copies each; returns the throughput,
    /// decoded bursts per slot.
    fn throughput(g: f64, replicas: usize, slots: usize, frames: usize, seed: u64) -> f64 {
        let mut rng = RngStream::new(seed, "test/random_access");
        let mut scratch = Scratch::default();
        let mut pool = Vec::new();
        let mut decoded = 0usize;
        for _ in 0..frames {
            // A Poisson number of bursts per frame (a large population of
            // terminals each sending rarely), by inversion.
            let mean = g * slots as f64;
            let n = poisson(&mut rng, mean);
            let bursts: Vec<Vec<u16>> = (0..n)
                .map(|_| draw_slots(&mut rng, slots, replicas, &mut pool))
                .collect();
            decoded += resolve(slots, &bursts, &mut scratch)
                .iter()
                .filter(|&&d| d)
                .count();
        }
        decoded as f64 / (slots * frames) as f64
    }

    fn poisson(rng: &mut RngStream, mean: f64) -> usize {
        // Sum of exponential gaps below 1: exact for any mean.
        let (mut n, mut t) = (0, rng.exponential(1.0 / mean));
        while t < 1.0 {
            n += 1;
            t += rng.exponential(1.0 / mean);
        }
        n
    }

    #[test]
    fn a_lone_burst_is_decoded_and_a_collision_loses_both() {
        let mut s = Scratch::default();
        assert_eq!(
            resolve(4, &[vec![0], vec![1], vec![1]], &mut s),
            [true, false, false]
        );
    }

    /// CRDSA: burst 0 is alone in slot 0 and collides with 1 in slot 1;
    /// 1 collides with 2 in slot 2. Decoding 0 in slot 0 cancels it from
    /// slot 1, which decodes 1, whose cancellation decodes 2. Bursts 3 and
    /// 4 both sit in slots 3 and 4: a loop SIC cannot open.
    #[test]
    fn sic_unpicks_a_chain_but_not_a_loop() {
        let mut s = Scratch::default();
        let bursts = [vec![0, 1], vec![1, 2], vec![2, 5], vec![3, 4], vec![3, 4]];
        assert_eq!(
            resolve(6, &bursts, &mut s),
            [true, true, true, false, false]
        );
        // As slotted ALOHA (first replicas only): 0, 1 and 2 alone, 3 and 4
        // collide.
        let first: Vec<Vec<u16>> = bursts.iter().map(|b| vec![b[0]]).collect();
        assert_eq!(resolve(6, &first, &mut s), [true, true, true, false, false]);
    }

    /// Slotted ALOHA's throughput is S = G e^-G (Roberts 1975; Poisson
    /// arrivals): over 20,000 frames of 100 slots, within 2 % of it at
    /// G = 0.25, 0.5, 1 (the peak, 1/e) and 2.
    #[test]
    fn slotted_aloha_throughput_is_g_e_to_the_minus_g() {
        for g in [0.25, 0.5, 1.0, 2.0] {
            let s = throughput(g, 1, 100, 20_000, 1);
            let theory = g * crate::engine::math::exp(-g);
            assert!((s / theory - 1.0).abs() < 0.02, "G {g}: S {s} vs {theory}");
        }
    }

    /// CRDSA with two replicas in frames of 100 slots: Casini et al. 2007
    /// report a peak of about 0.55 near G = 0.65. This collision channel
    /// with ideal cancellation gives 0.517 at G = 0.65 with a Poisson
    /// number of bursts per frame (0.534 with exactly G x 100 bursts, by
    /// a separate script): 6 % below the published peak, whose own
    /// channel model and iteration limit we do not have. Checked: the peak
    /// within 0.04 of 0.55 at G between 0.55 and 0.75, nearly every burst
    /// through at low load, and a fast fall past the peak.
    #[test]
    fn crdsa_two_replicas_peaks_near_0_55() {
        let curve: Vec<(f64, f64)> = [0.3, 0.5, 0.6, 0.65, 0.7, 0.8, 1.0]
            .iter()
            .map(|&g| (g, throughput(g, 2, 100, 4_000, 2)))
            .collect();
        let &(g_peak, s_peak) = curve.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert!((s_peak - 0.55).abs() < 0.04, "{curve:?}");
        assert!((0.55..=0.75).contains(&g_peak), "{curve:?}");
        // At low load nearly every burst gets through.
        assert!(curve[0].1 > 0.29, "{curve:?}");
        // Past the peak it falls fast (0.37 at G = 1).
        let at_1 = curve.last().unwrap().1;
        assert!(at_1 < s_peak - 0.1, "{curve:?}");
    }

    /// Three replicas carry more at moderate load than two (Casini et al.:
    /// the peak moves up and right; around 0.7 at G near 0.8 in frames of
    /// 100 slots, as read off the figure).
    #[test]
    fn crdsa_three_replicas_beat_two_at_moderate_load() {
        let two = throughput(0.7, 2, 100, 4_000, 3);
        let three = throughput(0.7, 3, 100, 4_000, 3);
        assert!(three > two, "two {two}, three {three}");
    }

    #[test]
    fn drawn_slots_are_distinct_and_in_range() {
        let mut rng = RngStream::new(1, "t");
        let mut pool = Vec::new();
        for _ in 0..1000 {
            let mut d = draw_slots(&mut rng, 10, 3, &mut pool);
            d.sort();
            d.dedup();
            assert_eq!(d.len(), 3);
            assert!(d.iter().all(|&s| s < 10));
        }
    }
}
