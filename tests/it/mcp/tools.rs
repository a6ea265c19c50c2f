//! The read-only fallback tools: their list, schemas, calls and pagination.

use super::*;

// ---------------------------------------------------------------------------------------------
// Tools.
// ---------------------------------------------------------------------------------------------

// checklist #12
#[tokio::test]
async fn tools_list_is_stable_sorted_read_only_and_small() {
    let mut w = Wire::start();
    let first = w.call("tools/list", json!({})).await;
    let again = w.call("tools/list", json!({})).await;
    assert_eq!(first["result"], again["result"]);
    let r = &first["result"];
    assert_eq!(r["ttlMs"], json!(300_000));
    assert_eq!(r["cacheScope"], "public");
    assert_server_info(r);
    let tools = r["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "get_pattern_by_id",
            "get_skill_document_by_id",
            "list_resources",
            "read_resource",
            "search_patterns"
        ]
    );
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object");
        // Derived from the argument types, with subschemas inline: nothing for a model to chase.
        let input = serde_json::to_string(&t["inputSchema"]).unwrap();
        assert!(!input.contains("$ref") && !input.contains("$defs"), "{input}");
        assert_eq!(t["inputSchema"]["additionalProperties"], json!(false));
        assert_eq!(t["outputSchema"]["type"], "object");
        assert_eq!(t["annotations"]["readOnlyHint"], json!(true));
        assert_eq!(t["annotations"]["idempotentHint"], json!(true));
        assert_eq!(t["annotations"]["openWorldHint"], json!(false));
        assert_eq!(t["annotations"]["destructiveHint"], json!(false));
    }
    // An enum argument lists its values (and `null`: an optional argument may be given as null).
    let list = tools.iter().find(|t| t["name"] == "list_resources").unwrap();
    assert_eq!(
        list["inputSchema"]["properties"]["kind"]["enum"],
        json!(["skill", "skill_file", "doc", "catalog", "all", null])
    );
    let size = serde_json::to_string(r).unwrap().len();
    assert!(size < 6 * 1024, "tools/list is {size} bytes; keep it under 6 KiB");
}

// checklist #13
#[tokio::test]
async fn tool_calls_validate_against_their_output_schemas_and_fail_actionably() {
    let fx = fixture();
    let mut w = Wire::start();
    let tools = w.ok("tools/list", json!({})).await["tools"].as_array().unwrap().clone();
    let schema =
        |name: &str| tools.iter().find(|t| t["name"] == json!(name)).unwrap()["outputSchema"].clone();
    let skill = &fx.catalog.skills[0];
    let doc = &fx.catalog.docs[0];
    for (name, args) in [
        ("list_resources", json!({})),
        ("list_resources", json!({ "kind": "skill", "limit": 5 })),
        ("list_resources", json!({ "kind": "doc", "sort": "updated", "limit": 3 })),
        ("read_resource", json!({ "uri": format!("resource://docs/{}", doc.path) })),
        ("search_patterns", json!({ "query": "template", "limit": 5 })),
        ("get_pattern_by_id", json!({ "id": skill.name })),
        ("get_pattern_by_id", json!({ "id": doc.path })),
        ("get_pattern_by_id", json!({ "id": format!("resource://docs/{}", doc.path) })),
        ("get_skill_document_by_id", json!({ "skill_id": skill.name })),
    ] {
        let res = w.ok("tools/call", json!({ "name": name, "arguments": args })).await;
        assert_eq!(res["isError"], json!(false), "{name} {args}: {res}");
        assert_server_info(&res);
        check_schema(&schema(name), &res["structuredContent"], name);
        let text = res["content"][0]["text"].as_str().unwrap();
        assert!(!text.is_empty(), "{name} has a text rendering");
    }
    // get_pattern_by_id returns exactly the detail resource.
    let detail =
        w.ok("resources/read", json!({ "uri": format!("resource://catalog/skills/{}", skill.name) })).await;
    let tool =
        w.ok("tools/call", json!({ "name": "get_pattern_by_id", "arguments": { "id": skill.name } })).await;
    assert_eq!(tool["content"][0]["text"], detail["contents"][0]["text"]);
    // get_skill_document_by_id returns exactly SKILL.md.
    let uri = &fx.catalog.entries[skill.document as usize].uri;
    let read = w.ok("resources/read", json!({ "uri": uri })).await;
    let tool = w
        .ok(
            "tools/call",
            json!({ "name": "get_skill_document_by_id", "arguments": { "skill_id": skill.name } }),
        )
        .await;
    assert_eq!(tool["structuredContent"]["text"], read["contents"][0]["text"]);
    assert_eq!(tool["structuredContent"]["files"].as_array().unwrap().len(), skill.files.len() + 1);
    // Unknown tool → -32602 (never -32601).
    let res = w.call("tools/call", json!({ "name": "rm_rf", "arguments": {} })).await;
    assert_eq!(error_of(&res).0, -32602);
    assert_repair(&res);
    // Invalid arguments → isError with a sentence and a repair.
    for (name, args) in [
        ("read_resource", json!({})),
        ("read_resource", json!({ "uri": 5 })),
        ("read_resource", json!({ "uri": "resource://docs/x.md", "bogus": 1 })),
        ("search_patterns", json!({ "query": "" })),
        ("search_patterns", json!({ "query": "x", "limit": 0 })),
        ("list_resources", json!({ "kind": "everything" })),
        ("list_resources", json!({ "cursor": "garbage" })),
        ("get_pattern_by_id", json!({ "id": "zzzz-nothing-like-this" })),
        ("read_resource", json!({ "uri": "resource://docs/../x" })),
    ] {
        let res = w.ok("tools/call", json!({ "name": name, "arguments": args })).await;
        assert_eq!(res["isError"], json!(true), "{name} {args}: {res}");
        assert!(res["content"][0]["text"].as_str().unwrap().ends_with('.'), "a sentence: {res}");
        assert!(res["structuredContent"]["repair"].is_object(), "structured repair: {res}");
    }
}

#[tokio::test]
async fn search_and_list_pagination_walk_every_result_once() {
    let fx = fixture();
    let mut w = Wire::start();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({ "kind": "doc", "limit": 500 });
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let res = w.ok("tools/call", json!({ "name": "list_resources", "arguments": args })).await;
        let sc = &res["structuredContent"];
        seen.extend(
            sc["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap().to_owned()),
        );
        assert_eq!(sc.get("templates").is_some(), cursor.is_none(), "templates on the first page only");
        match sc["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen.len(), fx.catalog.docs.len());
    assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), seen.len());
    let hits =
        w.ok("tools/call", json!({ "name": "search_patterns", "arguments": { "query": "shortcode" } })).await;
    let hits = hits["structuredContent"]["hits"].as_array().unwrap().clone();
    assert!(!hits.is_empty(), "the hugo docs mention shortcodes");
    for h in &hits {
        assert!(h["uri"].is_string() && h["score"].is_number() && h["snippet"].is_string());
    }
}
