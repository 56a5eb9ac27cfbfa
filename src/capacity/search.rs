//! The search for a row's capacity, as a state machine with no I/O: it
//! says which rate to try next and learns each step's verdict. A ramp
//! doubles the rate from the floor until a step misses (or the ceiling
//! holds), then bisection narrows the bracket between the highest held and
//! the lowest missed rate until they are within the precision. A
//! client-bound step ends the search: above it nothing can be said about
//! the server.
//!
//! A miss is tried once more before it counts: on a shared or virtual
//! machine a pause of a few milliseconds (the host taking the CPU away)
//! puts a short step's p99 over the target at any rate, and such noise
//! only ever makes a step miss, never hold. Two misses in a row at one
//! rate are the server's.

use crate::report::capacity::{Found, Verdict};

/// The search's bounds and stopping rule.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// The first rate tried.
    pub floor: f64,
    /// The highest rate tried.
    pub ceiling: f64,
    /// Stop when (missed − held) / held is at most this.
    pub precision: f64,
}

/// One search in progress.
#[derive(Debug, Clone)]
pub struct RateSearch {
    bounds: Bounds,
    /// The highest rate held so far.
    held: Option<f64>,
    /// The lowest rate missed so far.
    missed: Option<f64>,
    /// A rate the client could not offer.
    client_bound_at: Option<f64>,
    /// A rate that missed once, to be tried again.
    unconfirmed: Option<f64>,
}

impl RateSearch {
    /// A search within `bounds`.
    pub fn new(bounds: Bounds) -> RateSearch {
        RateSearch {
            bounds,
            held: None,
            missed: None,
            client_bound_at: None,
            unconfirmed: None,
        }
    }

    /// The next rate to try, or `None` when the search is over.
    pub fn next_rate(&self) -> Option<f64> {
        if self.client_bound_at.is_some() {
            return None;
        }
        if self.unconfirmed.is_some() {
            return self.unconfirmed;
        }
        let Bounds {
            floor,
            ceiling,
            precision,
        } = self.bounds;
        match (self.held, self.missed) {
            (None, None) => Some(floor),
            (None, Some(_)) => None,
            (Some(held), None) if held >= ceiling => None,
            (Some(held), None) => Some((held * 2.0).min(ceiling)),
            (Some(held), Some(missed)) if (missed - held) / held <= precision => None,
            (Some(held), Some(missed)) => Some((held + missed) / 2.0),
        }
    }

    /// Learns that `rate` came out as `verdict`. A first miss at a rate
    /// asks for that rate again ([`next_rate`](Self::next_rate)); the
    /// second answer counts.
    pub fn record(&mut self, rate: f64, verdict: Verdict) {
        let retried = self.unconfirmed.take() == Some(rate);
        match verdict {
            Verdict::Held => self.held = Some(self.held.map_or(rate, |held| held.max(rate))),
            Verdict::ClientBound => self.client_bound_at = Some(rate),
            Verdict::Slow | Verdict::Short | Verdict::Errors if !retried => self.unconfirmed = Some(rate),
            Verdict::Slow | Verdict::Short | Verdict::Errors => {
                self.missed = Some(self.missed.map_or(rate, |missed| missed.min(rate)))
            }
        }
    }

    /// What the search found (call once [`next_rate`](Self::next_rate) is
    /// `None`; before, it is [`Found::Unfinished`]).
    pub fn found(&self) -> Found {
        if let Some(at) = self.client_bound_at {
            return Found::ClientBound { held: self.held, at };
        }
        if self.next_rate().is_some() {
            return Found::Unfinished;
        }
        match (self.held, self.missed) {
            (Some(rate), Some(missed)) => Found::Capacity { rate, missed },
            (Some(held), None) => Found::NotBracketed { held },
            _ => Found::BelowFloor {
                floor: self.bounds.floor,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Bounds = Bounds {
        floor: 1000.0,
        ceiling: 1_000_000.0,
        precision: 0.05,
    };

    /// Runs a search against a server that holds every rate up to `limit`
    /// (and a client that cannot offer more than `client`); the rates tried.
    fn search(bounds: Bounds, limit: f64, client: f64) -> (Found, Vec<f64>) {
        let mut search = RateSearch::new(bounds);
        let mut tried = Vec::new();
        while let Some(rate) = search.next_rate() {
            tried.push(rate);
            let verdict = if rate > client {
                Verdict::ClientBound
            } else if rate <= limit {
                Verdict::Held
            } else {
                Verdict::Slow
            };
            search.record(rate, verdict);
            assert!(tried.len() < 100, "the search does not end: {tried:?}");
        }
        (search.found(), tried)
    }

    #[test]
    fn a_ramp_brackets_the_limit_and_bisection_narrows_it_to_the_precision() {
        let (found, tried) = search(BOUNDS, 9_500.0, f64::INFINITY);
        // 16000 missed, and again.
        assert_eq!(&tried[..6], &[1000.0, 2000.0, 4000.0, 8000.0, 16000.0, 16000.0]);
        let Found::Capacity { rate, missed } = found else {
            panic!("{found:?}")
        };
        assert!(rate <= 9_500.0 && missed > 9_500.0, "{rate} {missed}");
        assert!((missed - rate) / rate <= 0.05);
        assert!(rate > 9_500.0 * 0.95, "{rate}");
        // Five ramp steps, then bisection from a bracket of 2x to 5 %, each
        // miss tried twice.
        assert!(tried.len() <= 14, "{tried:?}");
    }

    #[test]
    fn a_row_that_misses_the_floor_or_holds_the_ceiling_says_so() {
        assert_eq!(
            search(BOUNDS, 500.0, f64::INFINITY),
            (Found::BelowFloor { floor: 1000.0 }, vec![1000.0, 1000.0])
        );
        let (found, tried) = search(BOUNDS, 5e6, f64::INFINITY);
        assert_eq!(found, Found::NotBracketed { held: 1_000_000.0 });
        assert_eq!(tried.last(), Some(&1_000_000.0));
    }

    #[test]
    fn a_client_bound_step_ends_the_search_without_a_server_figure() {
        let (found, tried) = search(BOUNDS, 50_000.0, 20_000.0);
        assert_eq!(
            found,
            Found::ClientBound {
                held: Some(16_000.0),
                at: 32_000.0
            }
        );
        assert_eq!(tried.len(), 6);
        // Client-bound before any held step: nothing held.
        let (found, _) = search(BOUNDS, 50_000.0, 10.0);
        assert_eq!(
            found,
            Found::ClientBound {
                held: None,
                at: 1000.0
            }
        );
    }

    #[test]
    fn a_miss_that_does_not_repeat_is_not_counted() {
        let mut search = RateSearch::new(BOUNDS);
        search.record(1000.0, Verdict::Held);
        assert_eq!(search.next_rate(), Some(2000.0));
        // A pause of the machine: 2000 misses once, then holds.
        search.record(2000.0, Verdict::Slow);
        assert_eq!(search.next_rate(), Some(2000.0));
        search.record(2000.0, Verdict::Held);
        assert_eq!(search.next_rate(), Some(4000.0));
        search.record(4000.0, Verdict::Short);
        search.record(4000.0, Verdict::Slow);
        assert_eq!(search.next_rate(), Some(3000.0));
    }

    #[test]
    fn an_unfinished_search_is_not_a_result() {
        let mut search = RateSearch::new(BOUNDS);
        search.record(1000.0, Verdict::Held);
        assert_eq!(search.found(), Found::Unfinished);
    }
}
