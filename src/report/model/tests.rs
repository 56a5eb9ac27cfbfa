//! The model's unit tests: rows made once and named in order, rounds
//! numbered, the report read back.

use super::*;

fn empty() -> BenchReport {
    BenchReport::new(
        ToolInfo::default(),
        MachineInfo::default(),
        Pinning::default(),
        serde_json::Value::Null,
        "2026-09-30T10:00:00Z",
    )
}

#[test]
fn row_mut_creates_once_and_records_names_in_order() {
    let mut report = empty();
    report.row_mut("s200", "mw", RowKind::Js);
    report.row_mut("hyper", "hello", RowKind::Native);
    report.row_mut("s200", "hello", RowKind::Js);
    report.row_mut("s200", "mw", RowKind::Js);
    assert_eq!(report.rows.len(), 3);
    assert_eq!(report.frameworks, ["s200", "hyper"]);
    assert_eq!(report.scenarios, ["mw", "hello"]);
    assert!(report.row("hyper", "hello").is_some());
    assert!(report.row("hyper", "mw").is_none());
}

#[test]
fn push_round_numbers_rounds() {
    let mut row = Row::new("s200", "hello", RowKind::Js);
    row.push_round(Round::new(2.0, 100, 90, Percentiles::default()));
    let second = row.push_round(Round::new(2.0, 100, 90, Percentiles::default()));
    assert_eq!(second.index, 1);
    assert_eq!(row.rounds[0].index, 0);
}

#[test]
fn round_rates_never_divide_by_zero() {
    let round = Round::new(2.0, 100, 90, Percentiles::default());
    assert_eq!((round.rps_ok, round.rps_all), (45.0, 50.0));
    let zero = Round::new(0.0, 100, 90, Percentiles::default());
    assert_eq!((zero.rps_ok, zero.rps_all), (0.0, 0.0));
}

#[test]
fn fail_keeps_rounds() {
    let mut row = Row::new("express", "mw", RowKind::Js);
    row.push_round(Round::new(1.0, 10, 10, Percentiles::default()));
    row.fail("server crashed", None);
    assert_eq!(row.failure(), Some("server crashed"));
    assert_eq!(row.rounds.len(), 1);
    assert!(!row.is_ok());
}

#[test]
fn rounds_without_cpu_shares_still_parse_and_write_none() {
    // A round as reports written before the shares were recorded hold it.
    let old = r#"{"index":0,"duration_s":1.0,"requests":10,"successes":10,"rps_ok":10.0,
        "rps_all":10.0,"latency_us":{"mean":1.0,"stdev":0.0,"p50":1,"p90":1,"p99":1,
        "p999":1,"p9999":1,"max":1},"errors":0,"non_2xx":0,"mismatches":0}"#;
    let round: Round = serde_json::from_str(old).expect("an old round parses");
    assert_eq!(
        (round.client_cpu, round.server_cpu, round.concurrency_achieved),
        (None, None, None)
    );
    let written = serde_json::to_string(&round).expect("serializes");
    assert!(
        !written.contains("cpu") && !written.contains("concurrency"),
        "{written}"
    );
    let measured = Round {
        client_cpu: Some(0.97),
        server_cpu: Some(0.5),
        concurrency_achieved: Some(49.5),
        ..round
    };
    let written = serde_json::to_string(&measured).expect("serializes");
    assert!(
        written.contains(r#""client_cpu":0.97,"server_cpu":0.5,"concurrency_achieved":49.5"#),
        "{written}"
    );
    assert_eq!(serde_json::from_str::<Round>(&written).ok(), Some(measured));
}

#[test]
fn status_serializes_with_a_state_tag() {
    let failed = RowStatus::Failed {
        reason: "boom".into(),
        stderr_tail: None,
    };
    assert_eq!(
        serde_json::to_string(&failed).ok().as_deref(),
        Some(r#"{"state":"failed","reason":"boom"}"#)
    );
    assert_eq!(
        serde_json::to_string(&RowStatus::Ok).ok().as_deref(),
        Some(r#"{"state":"ok"}"#)
    );
}
