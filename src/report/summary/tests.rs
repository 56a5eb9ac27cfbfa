//! The summary's unit tests: medians and spreads, ranks and ratios, the
//! client-bound rule, the per-framework figures.

use super::*;
use crate::report::model::{MachineInfo, Percentiles, Pinning, Round, ToolInfo};

fn round(rps: f64, p50: u64, p99: u64) -> Round {
    let latency = Percentiles {
        p50,
        p99,
        ..Percentiles::default()
    };
    // 1 s rounds, so rps_ok == successes.
    Round::new(1.0, rps as u64, rps as u64, latency)
}

fn report(rows: &[(&str, &str, RowKind, &[f64])]) -> BenchReport {
    let mut report = BenchReport::new(
        ToolInfo::default(),
        MachineInfo::default(),
        Pinning::default(),
        serde_json::Value::Null,
        "2026-09-30T10:00:00Z",
    );
    for (framework, scenario, kind, rps) in rows {
        let row = report.row_mut(framework, scenario, *kind);
        for &value in rps.iter() {
            row.push_round(round(value, 100, 1000));
        }
    }
    report
}

#[test]
fn median_of_odd_and_even_counts() {
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[7.0]), Some(7.0));
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median(&[10.0, 20.0]), Some(15.0));
}

#[test]
fn spread_and_overlap() {
    let a = Spread::of(&[5.0, 1.0, 3.0]).expect("values");
    assert_eq!((a.median, a.min, a.max), (3.0, 1.0, 5.0));
    assert!(a.overlaps(&Spread::of(&[5.0, 9.0]).expect("values")));
    assert!(!a.overlaps(&Spread::of(&[5.5, 9.0]).expect("values")));
    assert!(Spread::of(&[]).is_none());
}

#[test]
fn row_figures_are_medians_and_totals() {
    let mut report = report(&[]);
    let row = report.row_mut("s200", "hello", RowKind::Js);
    row.push_round(Round {
        errors: 1,
        non_2xx: 2,
        ..round(100.0, 10, 90)
    });
    row.push_round(Round {
        mismatches: 4,
        ..round(300.0, 30, 70)
    });
    let summary = Summary::of(&report);
    let row = summary.row("s200", "hello").expect("row");
    let rps = row.rps_ok.expect("rounds");
    assert_eq!((rps.median, rps.min, rps.max), (200.0, 100.0, 300.0));
    assert_eq!(row.p50_us, Some(20.0));
    assert_eq!(row.p99_us, Some(80.0));
    assert_eq!(
        (row.errors, row.non_2xx, row.mismatches, row.failures()),
        (1, 2, 4, 7)
    );
}

#[test]
fn ratio_to_hyper_is_median_over_median_of_the_same_scenario() {
    let summary = Summary::of(&report(&[
        ("hyper", "hello", RowKind::Native, &[400.0, 600.0, 500.0]),
        ("s200", "hello", RowKind::Js, &[100.0, 150.0]),
        ("hyper", "mw", RowKind::Native, &[1000.0]),
        ("s200", "mw", RowKind::Js, &[100.0]),
        ("s200", "param", RowKind::Js, &[100.0]),
    ]));
    assert_eq!(
        summary.row("hyper", "hello").and_then(|r| r.ratio_to_hyper),
        Some(1.0)
    );
    assert_eq!(
        summary.row("s200", "hello").and_then(|r| r.ratio_to_hyper),
        Some(0.25)
    );
    assert_eq!(
        summary.row("s200", "mw").and_then(|r| r.ratio_to_hyper),
        Some(0.1)
    );
    // No hyper row for param: no ratio, but still a rank.
    let param = summary.row("s200", "param").expect("row");
    assert_eq!((param.ratio_to_hyper, param.rank), (None, Some(1)));
}

#[test]
fn a_js_framework_named_hyper_is_not_the_baseline() {
    let summary = Summary::of(&report(&[
        ("hyper", "hello", RowKind::Js, &[400.0]),
        ("s200", "hello", RowKind::Js, &[100.0]),
    ]));
    assert_eq!(summary.row("s200", "hello").and_then(|r| r.ratio_to_hyper), None);
}

#[test]
fn mw_vs_hello_is_a_percentage_of_hello() {
    let summary = Summary::of(&report(&[
        ("hono-patched", "hello", RowKind::Js, &[17904.0]),
        ("hono-patched", "mw", RowKind::Js, &[9313.0]),
        ("fastify", "hello", RowKind::Js, &[100.0, 200.0]),
        ("fastify", "mw", RowKind::Js, &[150.0]),
        ("elysia", "hello", RowKind::Js, &[100.0]),
    ]));
    let pct = |f: &str| summary.framework(f).and_then(|f| f.mw_vs_hello_pct);
    let patched = pct("hono-patched").expect("both rows");
    assert!((patched - -47.98).abs() < 0.01, "{patched}");
    assert_eq!(pct("fastify"), Some(0.0));
    assert_eq!(pct("elysia"), None);
    assert!(summary.has_mw_vs_hello());
    // The chain's cost per request: 1e6/9313 - 1e6/17904 µs.
    let cost = |f: &str| summary.framework(f).and_then(|f| f.mw_cost_us);
    let patched = cost("hono-patched").expect("both rows");
    assert!((patched - 51.52).abs() < 0.01, "{patched}");
    assert_eq!(cost("elysia"), None);
}

#[test]
fn ranking_is_per_scenario_and_ties_share_a_rank() {
    let summary = Summary::of(&report(&[
        ("a", "hello", RowKind::Js, &[100.0]),
        ("b", "hello", RowKind::Js, &[300.0]),
        ("c", "hello", RowKind::Js, &[100.0]),
        ("d", "hello", RowKind::Js, &[50.0]),
        ("a", "mw", RowKind::Js, &[10.0]),
    ]));
    let ranks: Vec<(&str, Option<usize>)> = summary
        .ranked("hello")
        .iter()
        .map(|r| (r.framework.as_str(), r.rank))
        .collect();
    assert_eq!(
        ranks,
        [("b", Some(1)), ("a", Some(2)), ("c", Some(2)), ("d", Some(4))]
    );
    assert_eq!(summary.row("a", "mw").and_then(|r| r.rank), Some(1));
}

#[test]
fn failed_rows_and_rows_without_rounds_get_no_rank_ratio_or_tax() {
    let mut report = report(&[
        ("hyper", "hello", RowKind::Native, &[1000.0]),
        ("express", "hello", RowKind::Js, &[2000.0]),
        ("express", "mw", RowKind::Js, &[500.0]),
        ("s200", "hello", RowKind::Js, &[]),
        ("fastify", "hello", RowKind::Js, &[800.0]),
    ]);
    // A row that crashed after one round keeps the round but leaves
    // the comparisons.
    report
        .row_mut("express", "hello", RowKind::Js)
        .fail("server exited with status 1", Some("TypeError".into()));
    let summary = Summary::of(&report);
    let express = summary.row("express", "hello").expect("row");
    assert_eq!(express.failure.as_deref(), Some("server exited with status 1"));
    assert_eq!((express.rank, express.ratio_to_hyper), (None, None));
    assert_eq!(express.rounds, 1);
    assert!(express.rps_ok.is_some());
    let s200 = summary.row("s200", "hello").expect("row");
    assert_eq!((s200.rank, s200.rps_ok, s200.p50_us), (None, None, None));
    assert_eq!(summary.row("fastify", "hello").and_then(|r| r.rank), Some(2));
    assert_eq!(summary.framework("express").and_then(|f| f.mw_vs_hello_pct), None);
    let order: Vec<&str> = summary
        .ranked("hello")
        .iter()
        .map(|r| r.framework.as_str())
        .collect();
    assert_eq!(order, ["hyper", "fastify", "express", "s200"]);
}

#[test]
fn a_failed_hyper_row_means_no_ratios() {
    let mut report = report(&[
        ("hyper", "hello", RowKind::Native, &[1000.0]),
        ("s200", "hello", RowKind::Js, &[500.0]),
    ]);
    report
        .row_mut("hyper", "hello", RowKind::Native)
        .fail("port in use", None);
    let summary = Summary::of(&report);
    assert_eq!(summary.row("s200", "hello").and_then(|r| r.ratio_to_hyper), None);
}

/// A round with the given client and server CPU shares.
fn busy(client: Option<f64>, server: Option<f64>) -> Round {
    Round {
        client_cpu: client,
        server_cpu: server,
        ..round(1000.0, 100, 1000)
    }
}

fn client_bound_of(rounds: &[Round]) -> RowSummary {
    let mut report = report(&[]);
    let row = report.row_mut("hyper", "hello", RowKind::Native);
    for round in rounds {
        row.push_round(round.clone());
    }
    Summary::of(&report).rows.remove(0)
}

#[test]
fn a_busy_client_beside_an_idle_server_is_client_bound() {
    let row = client_bound_of(&[
        busy(Some(0.97), Some(0.55)),
        busy(Some(0.99), Some(0.62)),
        busy(Some(0.70), Some(0.95)),
    ]);
    // Medians: the client 97 %, the server 62 %; one round's own
    // verdict does not decide.
    assert_eq!((row.client_cpu, row.server_cpu), (Some(0.97), Some(0.62)));
    assert!(row.client_bound);
    assert_eq!(row.client_bound_shares(), Some((0.97, 0.62)));
}

#[test]
fn a_failed_client_bound_row_shows_no_mark() {
    let mut report = report(&[]);
    let row = report.row_mut("hyper", "hello", RowKind::Native);
    row.push_round(busy(Some(0.97), Some(0.5)));
    row.fail("server exited with status 1", None);
    let summary = Summary::of(&report);
    let row = summary.row("hyper", "hello").expect("row");
    // The rounds say what they say; the writers show FAILED instead.
    assert!(row.client_bound);
    assert_eq!(row.client_bound_shares(), None);
}

#[test]
fn a_busy_server_or_an_idle_client_is_not_client_bound() {
    // Both busy: the server was (also) the limit.
    assert!(!client_bound_of(&[busy(Some(0.98), Some(0.95))]).client_bound);
    // The client had room.
    assert!(!client_bound_of(&[busy(Some(0.6), Some(0.5))]).client_bound);
    // At the thresholds exactly: not above 80 %, not below 90 %.
    assert!(!client_bound_of(&[busy(Some(CLIENT_BUSY), Some(0.5))]).client_bound);
    assert!(!client_bound_of(&[busy(Some(0.95), Some(SERVER_BUSY))]).client_bound);
}

#[test]
fn without_both_shares_a_row_is_not_client_bound() {
    // A report written before the shares were recorded.
    let old = client_bound_of(&[round(1000.0, 100, 1000)]);
    assert_eq!(
        (old.client_cpu, old.server_cpu, old.client_bound),
        (None, None, false)
    );
    // The server's CPU time could not be read.
    let half = client_bound_of(&[busy(Some(0.99), None)]);
    assert_eq!(
        (half.client_cpu, half.server_cpu, half.client_bound),
        (Some(0.99), None, false)
    );
    // Rounds that lack a share are left out of its median.
    let mixed = client_bound_of(&[busy(Some(0.9), Some(0.4)), round(1000.0, 100, 1000)]);
    assert_eq!((mixed.client_cpu, mixed.server_cpu), (Some(0.9), Some(0.4)));
    assert!(mixed.client_bound);
    // No rounds at all.
    assert!(!client_bound_of(&[]).client_bound);
}

#[test]
fn names_only_in_rows_are_still_summarized() {
    let mut report = report(&[("s200", "hello", RowKind::Js, &[1.0])]);
    report.rows.push(Row::new("axum", "extra", RowKind::Native));
    let summary = Summary::of(&report);
    assert_eq!(summary.scenarios, ["hello", "extra"]);
    assert_eq!(summary.frameworks, ["s200", "axum"]);
    assert_eq!(summary.max_rounds, 1);
}

/// A report whose rows' rounds record `server_wait`.
fn waited(rows: &[(&str, &[Option<f64>])]) -> BenchReport {
    let mut report = report(&[]);
    for (framework, waits) in rows {
        let row = report.row_mut(framework, "hello", RowKind::Js);
        for &server_wait in waits.iter() {
            row.push_round(Round {
                server_wait,
                ..round(1000.0, 100, 1000)
            });
        }
    }
    report
}

#[test]
fn rows_a_busy_machine_held_back_are_named_in_one_warning() {
    let report = waited(&[
        ("s200", &[Some(0.01), Some(0.02), Some(0.0)]),
        // One held-back round of three: its median is quiet.
        ("hono", &[Some(0.9), Some(0.02), Some(0.03)]),
        ("express", &[Some(0.4), Some(0.6), Some(0.05)]),
    ]);
    assert_eq!(Summary::of(&report).rows[2].server_wait, Some(0.4));
    assert_eq!(
        held_back_warning(&report).as_deref(),
        Some(
            "the server waited for a CPU up to 40% of the time (median over a row's rounds; \
             express × hello): other processes on its CPUs, or the hypervisor (steal time), held \
             it back, so those figures are lower and noisier than on a quiet machine"
        )
    );
}

#[test]
fn a_quiet_run_or_one_without_the_figure_has_no_warning() {
    // At the threshold exactly: not above it.
    assert_eq!(
        held_back_warning(&waited(&[("s200", &[Some(SERVER_WAITED)])])),
        None
    );
    // Reports written before it was recorded.
    assert_eq!(held_back_warning(&waited(&[("s200", &[None, None])])), None);
    let all = held_back_warning(&waited(&[("s200", &[Some(0.5)]), ("hono", &[Some(0.3)])]));
    assert!(all.is_some_and(|w| w.contains("up to 50% of the time") && w.contains("; every row)")));
}

// A row's cost per request: the medians over its rounds.

fn cost_round(user: f64, heap_bytes: Option<f64>) -> Round {
    Round {
        cost: Some(RequestCost {
            server_user_us: user,
            server_system_us: 2.0,
            client_us: Some(3.0),
            heap: heap_bytes.map(|bytes_per_request| HeapCost {
                bytes_per_request,
                gc_us: 0.5,
                gc_share: 0.05,
                young_gcs: 10,
                full_gcs: 0,
                longest_pause_us: bytes_per_request / 100.0,
            }),
            server_time: None,
        }),
        ..Round::new(1.0, 100, 100, Percentiles::default())
    }
}

#[test]
fn a_rows_cost_is_the_median_of_its_rounds_and_the_longest_pause_the_longest() {
    let mut row = Row::new("hono", "mw", RowKind::Js);
    for (user, bytes) in [(10.0, 1000.0), (30.0, 3000.0), (20.0, 2000.0)] {
        row.push_round(cost_round(user, Some(bytes)));
    }
    let cost = CostSummary::of(&row).expect("rounds with costs");
    assert_eq!(cost.server_user_us, 20.0);
    assert_eq!(cost.server_us(), 22.0);
    let heap = cost.heap.expect("every round had heap figures");
    assert_eq!(heap.bytes_per_request, 2000.0);
    assert_eq!(heap.longest_pause_us, 30.0);
}

#[test]
fn heap_figures_are_left_out_unless_every_round_has_them() {
    let mut row = Row::new("hono", "mw", RowKind::Js);
    row.push_round(cost_round(10.0, Some(1000.0)));
    row.push_round(cost_round(10.0, None));
    assert_eq!(CostSummary::of(&row).expect("costs").heap, None);
    let empty = Row::new("hyper", "mw", RowKind::Native);
    assert_eq!(CostSummary::of(&empty), None);
}

/// A row whose server process used no CPU while 20,000 answers came back
/// was answered by something else (its banner named another server's port,
/// say): the run says so. A few answers at 0 CPU are a clock's rounding.
#[test]
fn a_server_that_used_no_cpu_while_answering_is_flagged() {
    let idle_round = |answers: u64, user: f64| Round {
        cost: Some(RequestCost {
            server_user_us: user,
            server_system_us: 0.0,
            client_us: None,
            heap: None,
            server_time: None,
        }),
        ..Round::new(1.0, answers, answers, Percentiles::default())
    };
    let mut run = report(&[]);
    run.row_mut("hono", "hello", RowKind::Js)
        .push_round(idle_round(20_000, 0.0));
    run.row_mut("s200", "hello", RowKind::Js)
        .push_round(idle_round(20_000, 5.0));
    run.row_mut("express", "hello", RowKind::Js)
        .push_round(idle_round(50, 0.0));
    let warning = idle_server_warning(&run).expect("hono's server was idle");
    assert!(warning.contains("(hono × hello)"), "{warning}");
    run.rows.retain(|row| row.framework != "hono");
    assert_eq!(idle_server_warning(&run), None);
}

/// The in-runtime figure is part of the server's cost per request; one
/// above it is an app that ran otherwise without the socket.
#[test]
fn an_in_runtime_cost_above_the_servers_whole_cost_is_flagged() {
    let mut run = report(&[]);
    let row = run.row_mut("hono", "hello", RowKind::Js);
    row.push_round(cost_round(7.0, None)); // 9 µs of server CPU a request
    row.in_runtime = Some(InRuntimeCost {
        requests: 1000,
        cpu_us: 5033.0,
        bytes_per_request: None,
        gc_us: None,
        mismatches: 0,
        error: None,
    });
    let warning = in_runtime_warning(&run).expect("flagged");
    assert!(
        warning.contains("hono × hello: 5033.00 µs against 9.00"),
        "{warning}"
    );
    run.row_mut("hono", "hello", RowKind::Js)
        .in_runtime
        .as_mut()
        .unwrap()
        .cpu_us = 4.0;
    assert_eq!(in_runtime_warning(&run), None);
}
