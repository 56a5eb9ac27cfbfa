//! Least-squares fits of µs per request against chain depth: a line (the
//! fixed cost and the cost of one more link, with a 95 % confidence
//! interval) and a parabola whose curvature says whether a link's cost
//! grows with the chain.
//!
//! Every round at every depth is one point, so the interval reflects the
//! round-to-round spread as well as how well a line fits.

use serde::Serialize;

use crate::estimate::Estimate;

/// Whether the cost of a link stays the same as the chain grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// The curvature's interval contains zero: one line fits.
    Linear,
    /// Each further link costs more than the one before.
    Grows,
    /// Each further link costs less (e.g. a fixed cost paid by the first).
    Shrinks,
    /// Too few distinct depths (fewer than four) to tell.
    Unknown,
}

/// The fits of one framework's points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainFit {
    /// µs per request with no links (the intercept).
    pub fixed_us: Estimate,
    /// µs each link adds (the slope).
    pub per_link_us: Estimate,
    /// The parabola's curvature, µs per link²: how much each further link
    /// costs more than the one before, halved. `None` with fewer than four
    /// distinct depths.
    pub curvature_us: Option<Estimate>,
    /// Linear, or not, by the curvature's interval.
    pub shape: Shape,
    /// Share of the variance the line explains (1 is a perfect line).
    pub r_squared: f64,
    /// Points fitted (rounds × depths).
    pub points: usize,
}

/// Why a fit cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    /// A line needs two distinct depths and one point more than that.
    #[error(
        "a fit needs at least two distinct depths and three points, got {depths} depths and {points} points"
    )]
    TooFewPoints {
        /// Distinct depths among the points.
        depths: usize,
        /// Points given.
        points: usize,
    },
}

/// Fits `(depth, µs per request)` points.
pub fn fit(points: &[(f64, f64)]) -> Result<ChainFit, FitError> {
    let mut depths: Vec<f64> = points.iter().map(|&(x, _)| x).collect();
    depths.sort_by(f64::total_cmp);
    depths.dedup();
    if depths.len() < 2 || points.len() < 3 {
        return Err(FitError::TooFewPoints {
            depths: depths.len(),
            points: points.len(),
        });
    }
    let line = least_squares(points, 2).ok_or(FitError::TooFewPoints {
        depths: depths.len(),
        points: points.len(),
    })?;
    let mean_y = points.iter().map(|&(_, y)| y).sum::<f64>() / points.len() as f64;
    let total: f64 = points.iter().map(|&(_, y)| (y - mean_y).powi(2)).sum();
    let r_squared = if total > 0.0 {
        1.0 - line.residual / total
    } else {
        1.0
    };
    let curvature = (depths.len() >= 4 && points.len() > 3)
        .then(|| least_squares(points, 3))
        .flatten()
        .map(|parabola| parabola.estimates[2]);
    let shape = match curvature {
        None => Shape::Unknown,
        Some(c) if c.spans_zero() => Shape::Linear,
        Some(c) if c.value > 0.0 => Shape::Grows,
        Some(_) => Shape::Shrinks,
    };
    Ok(ChainFit {
        fixed_us: line.estimates[0],
        per_link_us: line.estimates[1],
        curvature_us: curvature,
        shape,
        r_squared,
        points: points.len(),
    })
}

/// A polynomial fit's coefficients (constant first) and residual sum of
/// squares.
struct Polynomial {
    estimates: Vec<Estimate>,
    residual: f64,
}

/// Ordinary least squares of `y` on `1, x, …, x^(terms-1)`, through the
/// normal equations (small, well-conditioned here: depths are at most a few
/// hundred and terms at most three). `None` when they are singular or no
/// degree of freedom is left for the error.
fn least_squares(points: &[(f64, f64)], terms: usize) -> Option<Polynomial> {
    let n = points.len();
    if n <= terms {
        return None;
    }
    let row = |x: f64| (0..terms).map(move |k| x.powi(k as i32));
    let mut xtx = vec![vec![0.0; terms]; terms];
    let mut xty = vec![0.0; terms];
    for &(x, y) in points {
        let r: Vec<f64> = row(x).collect();
        for i in 0..terms {
            xty[i] += r[i] * y;
            for j in 0..terms {
                xtx[i][j] += r[i] * r[j];
            }
        }
    }
    let inverse = invert(xtx)?;
    let beta: Vec<f64> = (0..terms)
        .map(|i| (0..terms).map(|j| inverse[i][j] * xty[j]).sum())
        .collect();
    let residual: f64 = points
        .iter()
        .map(|&(x, y)| {
            let fitted: f64 = row(x).zip(&beta).map(|(p, b)| p * b).sum();
            (y - fitted).powi(2)
        })
        .sum();
    let dof = n - terms;
    let variance = residual / dof as f64;
    let estimates = (0..terms)
        .map(|i| Estimate::new(beta[i], (variance * inverse[i][i]).sqrt(), dof))
        .collect();
    Some(Polynomial { estimates, residual })
}

/// The inverse of a small square matrix by Gauss-Jordan elimination with
/// partial pivoting; `None` when it is singular.
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inverse: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        inverse.swap(col, pivot);
        let scale = a[col][col];
        for j in 0..n {
            a[col][j] /= scale;
            inverse[col][j] /= scale;
        }
        for i in 0..n {
            if i != col {
                let factor = a[i][col];
                for j in 0..n {
                    a[i][j] -= factor * a[col][j];
                    inverse[i][j] -= factor * inverse[col][j];
                }
            }
        }
    }
    Some(inverse)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fixed + per_link·d`, with a small alternating wobble so the
    /// interval is not zero-width.
    fn line(fixed: f64, per_link: f64, depths: &[f64], rounds: usize) -> Vec<(f64, f64)> {
        let mut points = Vec::new();
        for r in 0..rounds {
            for &d in depths {
                let wobble = if (r + d as usize).is_multiple_of(2) {
                    0.1
                } else {
                    -0.1
                };
                points.push((d, fixed + per_link * d + wobble));
            }
        }
        points
    }

    const DEPTHS: [f64; 6] = [0.0, 1.0, 2.0, 4.0, 8.0, 16.0];

    #[test]
    fn a_line_gives_back_its_intercept_and_slope() {
        let fit = fit(&line(20.0, 1.5, &DEPTHS, 3)).unwrap();
        assert!((fit.fixed_us.value - 20.0).abs() < 0.1, "{fit:?}");
        assert!((fit.per_link_us.value - 1.5).abs() < 0.01, "{fit:?}");
        assert!(
            fit.per_link_us.ci95_low < 1.5 && 1.5 < fit.per_link_us.ci95_high,
            "{fit:?}"
        );
        assert!(fit.per_link_us.half_width() < 0.05, "{fit:?}");
        assert_eq!(fit.shape, Shape::Linear);
        assert!(fit.r_squared > 0.99);
        assert_eq!(fit.points, 18);
    }

    #[test]
    fn a_cost_that_grows_with_the_chain_is_not_called_linear() {
        let points: Vec<(f64, f64)> = line(20.0, 1.0, &DEPTHS, 3)
            .into_iter()
            .map(|(d, y)| (d, y + 0.2 * d * d))
            .collect();
        let fit = fit(&points).unwrap();
        assert_eq!(fit.shape, Shape::Grows, "{fit:?}");
        let curvature = fit.curvature_us.unwrap();
        assert!((curvature.value - 0.2).abs() < 0.01, "{curvature:?}");
    }

    #[test]
    fn a_first_link_that_costs_more_shows_as_shrinking() {
        // Depth 0 is cheap; every depth >= 1 pays a fixed 10 µs extra.
        let points: Vec<(f64, f64)> = line(20.0, 1.0, &DEPTHS, 3)
            .into_iter()
            .map(|(d, y)| (d, if d >= 1.0 { y + 10.0 } else { y }))
            .collect();
        assert_eq!(fit(&points).unwrap().shape, Shape::Shrinks);
    }

    #[test]
    fn noise_widens_the_interval() {
        let quiet = fit(&line(20.0, 1.0, &DEPTHS, 3)).unwrap();
        let noisy_points: Vec<(f64, f64)> = line(20.0, 1.0, &DEPTHS, 3)
            .into_iter()
            .enumerate()
            .map(|(i, (d, y))| (d, y + if i % 3 == 0 { 3.0 } else { -1.5 }))
            .collect();
        let noisy = fit(&noisy_points).unwrap();
        assert!(noisy.per_link_us.half_width() > 5.0 * quiet.per_link_us.half_width());
    }

    #[test]
    fn too_few_depths_are_refused_and_three_give_no_shape() {
        assert_eq!(
            fit(&[(4.0, 1.0), (4.0, 2.0), (4.0, 3.0)]),
            Err(FitError::TooFewPoints { depths: 1, points: 3 })
        );
        let three = fit(&line(5.0, 1.0, &[0.0, 1.0, 2.0], 2)).unwrap();
        assert_eq!(three.shape, Shape::Unknown);
        assert_eq!(three.curvature_us, None);
    }
}
