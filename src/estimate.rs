//! An estimate with its two-sided 95 % confidence interval, from Student's
//! t: what a sweep's fits and an ablation's paired differences report.

use serde::Serialize;

/// An estimate with its two-sided 95 % confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The estimated value.
    pub value: f64,
    /// Lower end of the 95 % confidence interval.
    pub ci95_low: f64,
    /// Upper end of the 95 % confidence interval.
    pub ci95_high: f64,
}

impl Estimate {
    /// `value ± t(dof) × standard_error`.
    pub fn new(value: f64, standard_error: f64, degrees_of_freedom: usize) -> Self {
        let half = t_975(degrees_of_freedom) * standard_error;
        Estimate {
            value,
            ci95_low: value - half,
            ci95_high: value + half,
        }
    }

    /// Whether the interval contains zero: the data cannot tell the sign.
    pub fn spans_zero(&self) -> bool {
        self.ci95_low <= 0.0 && 0.0 <= self.ci95_high
    }

    /// Half the interval's width (the `±` of `value ± half`).
    pub fn half_width(&self) -> f64 {
        (self.ci95_high - self.ci95_low) / 2.0
    }
}

/// The mean of `samples` with its 95 % interval, from their spread (the
/// standard error of the mean, `n - 1` degrees of freedom). `None` with
/// fewer than two samples.
pub fn mean(samples: &[f64]) -> Option<Estimate> {
    if samples.len() < 2 {
        return None;
    }
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let variance = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some(Estimate::new(mean, (variance / n).sqrt(), samples.len() - 1))
}

/// The 97.5th percentile of Student's t with `dof` degrees of freedom: the
/// multiplier of a two-sided 95 % interval. Exact (to three decimals) up to
/// 30, then the Cornish-Fisher expansion around the normal's 1.96, which is
/// within 0.001 of the exact value from there on.
pub fn t_975(dof: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042,
    ];
    if dof == 0 {
        return f64::INFINITY;
    }
    if dof <= TABLE.len() {
        return TABLE[dof - 1];
    }
    let z: f64 = 1.959_963_985;
    let v = dof as f64;
    z + (z.powi(3) + z) / (4.0 * v)
        + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * v * v)
        + (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / (384.0 * v.powi(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        assert_eq!(t_975(1), 12.706);
        assert_eq!(t_975(16), 2.120);
        // Exact: 2.021 (40), 2.000 (60), 1.984 (100).
        assert!((t_975(40) - 2.021).abs() < 0.001);
        assert!((t_975(60) - 2.000).abs() < 0.001);
        assert!((t_975(100) - 1.984).abs() < 0.001);
        assert!(t_975(0).is_infinite());
    }

    #[test]
    fn a_mean_gets_the_interval_of_its_spread() {
        let estimate = mean(&[9.0, 10.0, 11.0]).unwrap();
        assert_eq!(estimate.value, 10.0);
        // sd 1, se 1/sqrt(3), t(2) = 4.303.
        assert!(
            (estimate.half_width() - 4.303 / 3f64.sqrt()).abs() < 1e-9,
            "{estimate:?}"
        );
        assert!(!estimate.spans_zero());
        assert!(mean(&[-1.0, 1.0]).unwrap().spans_zero());
        assert_eq!(mean(&[5.0]), None);
    }
}
