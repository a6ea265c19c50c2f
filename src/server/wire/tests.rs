use proptest::prelude::*;

use super::*;

/// What the transport does with a line, as text: the exact answer line when there is one.
fn show(line: &[u8]) -> String {
    match decode(line) {
        Line::Blank => "blank".to_owned(),
        Line::Ignored => "ignored".to_owned(),
        Line::Message(_) => "message".to_owned(),
        Line::Reply(r) => serde_json::to_string(&r).unwrap_or_default(),
    }
}

#[track_caller]
fn check_code(line: &[u8], code: i64, id: Value) {
    let answer: Value = serde_json::from_str(&show(line)).unwrap_or_else(|e| panic!("{e}: {}", show(line)));
    assert_eq!(answer["error"]["code"], json!(code), "{answer}");
    assert_eq!(answer.get("id").cloned().unwrap_or(Value::Null), id, "{answer}");
}

#[test]
fn messages_pass_and_blank_lines_and_bad_notifications_are_not_answered() {
    assert_eq!(show(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#), "message");
    assert_eq!(show(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\r"), "message");
    assert_eq!(show(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), "message");
    assert_eq!(
        show(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":null}}"#),
        "message"
    );
    assert_eq!(show(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"c"}}"#), "message");
    assert_eq!(show(b""), "blank");
    assert_eq!(show(b" \t\r"), "blank");
    assert_eq!(show(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#), "ignored");
    assert_eq!(show(br#"{"jsonrpc":"2.0","method":"lsp/whatever","params":[1]}"#), "ignored");
}

#[test]
fn bad_lines_get_the_json_rpc_code_and_their_id() {
    check_code(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"\ud800"}}"#, -32700, json!(1));
    check_code(b"{\"id\":\"a\\\"b\",\"x\":\"\xff\"}", -32700, json!("a\"b"));
    check_code(br#"{"jsonrpc":"2.0","id":-3,"method":"ping","params":{"n":1e400}}"#, -32700, json!(-3));
    check_code(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping","params":{"n":1e400}}"#, -32700, Value::Null);
    check_code(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600, Value::Null);
    check_code(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, -32600, Value::Null);
    check_code(br#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#, -32600, json!(8));
    check_code(br#"[{"jsonrpc":"2.0","id":8,"method":"ping"}]"#, -32600, Value::Null);
    check_code(b"42", -32600, Value::Null);
    check_code(b"\xff", -32700, Value::Null);
    // A cursor of the wrong type is the handler's to refuse (the message is marked, see `params`).
    assert_eq!(
        show(br#"{"jsonrpc":"2.0","id":12,"method":"skills/list","params":{"cursor":true}}"#),
        "message"
    );
    // A top-level id after deep nesting and strings with brackets in them.
    let deep = format!(r#"{{"params":{}{},"s":"]}}[{{","id":77}}"#, "[".repeat(500), "]".repeat(500));
    check_code(deep.as_bytes(), -32700, json!(77));
    // An `id` key nested deeper is not the request's.
    check_code(br#"{"params":{"id":5},"method":"ping","jsonrpc":"2.0","x":1e400}"#, -32700, Value::Null);
}

#[test]
fn the_answer_to_a_long_line_carries_the_id_of_its_start() {
    let answer = serde_json::to_string(&too_long(
        br#"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"x":"xxxx"#,
    ))
    .unwrap_or_default();
    assert!(answer.starts_with(r#"{"jsonrpc":"2.0","id":"big","error":{"code":-32600,"message":"invalid request: the line is longer than 16777216 bytes""#), "{answer}");
    let answer = serde_json::to_string(&too_long(b"xxxx")).unwrap_or_default();
    assert!(answer.starts_with(r#"{"jsonrpc":"2.0","error":{"code":-32600,"#), "{answer}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any bytes: no panic, and an answer (if any) is one JSON-RPC error line.
    #[test]
    fn any_line_is_a_message_or_one_well_formed_answer(line in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_any(&line);
    }

    /// Mutated requests (the interesting region: almost valid messages).
    #[test]
    fn mutated_requests_are_a_message_or_one_well_formed_answer(
        id in any::<i64>(),
        cut in 0usize..80,
        byte in any::<u8>(),
        at in 0usize..80,
    ) {
        let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"cursor":"c"}}}}"#).into_bytes();
        let at = at % line.len();
        line[at] = byte;
        line.truncate(line.len().saturating_sub(cut));
        check_any(&line);
    }

    /// Whatever surrounds it, an integer id in front is recovered.
    #[test]
    fn a_leading_integer_id_is_recovered(id in any::<i64>(), tail in proptest::collection::vec(any::<u8>(), 0..100)) {
        let mut line = format!(r#"{{"id":{id},"#).into_bytes();
        line.extend(tail);
        prop_assert_eq!(recover_id(&line), Some(RequestId::Number(id)));
    }
}

fn check_any(line: &[u8]) {
    match decode(line) {
        Line::Reply(answer) => {
            let text = serde_json::to_string(&answer).unwrap_or_default();
            assert!(!text.contains('\n'), "one line: {text}");
            let value: Value = serde_json::from_str(&text).unwrap_or_default();
            assert_eq!(value["jsonrpc"], json!("2.0"), "{text}");
            let code = value["error"]["code"].as_i64().unwrap_or_default();
            assert!([-32700, -32600].contains(&code), "{text}");
            assert!(matches!(value.get("id"), None | Some(Value::Number(_) | Value::String(_))), "{text}");
        }
        Line::Message(_) | Line::Blank | Line::Ignored => {}
    }
}

#[test]
fn a_member_given_twice_and_a_fractional_id_are_invalid_requests_saying_so() {
    let answer = |line: &[u8]| -> Value { serde_json::from_str(&show(line)).unwrap() };
    let twice = answer(br#"{"jsonrpc":"2.0","id":4,"method":"ping","method":"tools/list"}"#);
    assert_eq!(twice["id"], json!(4), "{twice}");
    assert_eq!(twice["error"]["code"], json!(-32600), "{twice}");
    assert_eq!(
        twice["error"]["message"],
        "invalid request: the member `method` is given twice; send each member of the object once"
    );
    // Which of two ids to answer is unknowable: neither.
    check_code(br#"{"jsonrpc":"2.0","id":4,"method":"ping","id":5}"#, -32600, Value::Null);
    check_code(br#"{"jsonrpc":"2.0","\u0069d":4,"method":"ping","id":5}"#, -32600, Value::Null);
    let fraction = answer(br#"{"jsonrpc":"2.0","id":1e-999999,"method":"ping"}"#);
    assert_eq!(fraction.get("id"), None, "{fraction}");
    assert_eq!(
        fraction["error"]["message"],
        "invalid request: `id` 1e-999999 is not an integer or a string (MCP request ids are strings or integers)"
    );
    for id in ["0.5", "-2.25", "1E-1", "12.5e0", "1e-999999999999999999999"] {
        check_code(
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).as_bytes(),
            -32600,
            Value::Null,
        );
    }
    // Integers written in float form are integers.
    for id in ["1.0", "1e2", "-0", "0.0e5"] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        assert!(malformed(line.as_bytes()).is_none(), "{id}");
    }
    assert!(malformed(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"a":2}}"#).is_none());
}

#[test]
fn exact_integer_test_on_the_digits() {
    for (raw, fraction) in [
        ("1", false),
        ("1.0", false),
        ("1.50e1", false),
        ("15e-1", true),
        ("150e-1", false),
        ("0.000", false),
        ("0.001e3", false),
        ("0.001e2", true),
        ("1e-999999", true),
        ("1e999999999999999999999999", false),
        ("abc", false),
    ] {
        assert_eq!(is_fraction(raw.as_bytes()), fraction, "{raw}");
    }
}
