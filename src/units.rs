//! How fwbench writes times for people: a latency with its unit, and a
//! span of wall time. One place, so the load report, bench's progress line
//! and the report writers read alike.

/// A latency in microseconds with a unit, as wrk writes it (`812.00us`,
/// `1.23ms`, `2.00s`).
pub fn latency(us: f64) -> String {
    if us < 1_000.0 {
        format!("{us:.2}us")
    } else if us < 1_000_000.0 {
        format!("{:.2}ms", us / 1e3)
    } else {
        format!("{:.2}s", us / 1e6)
    }
}

/// A span of wall time in seconds: `4m 12s` from a minute on, whole
/// seconds as `10s`, else `12.5s`, and under a second `0.25s`.
pub fn wall_time(seconds: f64) -> String {
    if seconds >= 60.0 {
        let whole = seconds.round() as u64;
        format!("{}m {:02}s", whole / 60, whole % 60)
    } else if seconds.fract() == 0.0 {
        format!("{seconds:.0}s")
    } else if seconds >= 1.0 {
        format!("{seconds:.1}s")
    } else {
        format!("{seconds:.2}s")
    }
}

/// A start-up time in seconds, in milliseconds to a tenth (`12.3 ms`):
/// start-up phases are a few ms to a few hundred.
pub fn start_up(seconds: f64) -> String {
    format!("{:.1} ms", seconds * 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_carry_their_unit() {
        assert_eq!(latency(812.0), "812.00us");
        assert_eq!(latency(1234.0), "1.23ms");
        assert_eq!(latency(2_000_000.0), "2.00s");
        assert_eq!(start_up(0.01234), "12.3 ms");
    }

    #[test]
    fn wall_times_read_as_minutes_and_seconds() {
        assert_eq!(wall_time(252.4), "4m 12s");
        assert_eq!(wall_time(65.0), "1m 05s");
        assert_eq!(wall_time(42.0), "42s");
        assert_eq!(wall_time(12.46), "12.5s");
        assert_eq!(wall_time(0.5), "0.50s");
    }
}
