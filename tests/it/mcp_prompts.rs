//! MCP prompts end to end: one prompt per skill, paginated with the cache hints of every list,
//! `prompts/get` embedding the exact SKILL.md, `-32602` for unknown prompts and arguments, and
//! completion of prompt arguments (checklist #25 and #26 of ARCHITECTURE.md).

use serde_json::{Value, json};

use crate::mcp::{Wire, assert_repair, assert_server_info, error_of, fixture};

// checklist #25
#[tokio::test]
async fn prompts_list_has_one_cheap_prompt_per_skill_with_cache_hints() {
    let fx = fixture();
    let mut w = Wire::start();
    let (prompts, pages) = w.walk("prompts/list", "prompts", json!({})).await;
    let names: Vec<&str> = prompts.iter().map(|p| p["name"].as_str().unwrap()).collect();
    let skills: Vec<&str> = fx.catalog.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, skills, "one prompt per skill, in skill-path order");
    for page in &pages {
        assert_eq!(page["ttlMs"], json!(300_000));
        assert_eq!(page["cacheScope"], "public");
        assert_eq!(page["resultType"], "complete");
        assert_server_info(page);
    }
    for (prompt, skill) in prompts.iter().zip(&fx.catalog.skills) {
        assert_eq!(prompt["description"], skill.description.as_str());
        assert_eq!(
            prompt["arguments"],
            json!([{ "name": "task", "description": "what to do with the skill" }])
        );
        // Discovery stays cheap: 98 bytes and the name beyond the description.
        let bytes = prompt.to_string().len() - serde_json::to_string(&skill.description).unwrap().len();
        assert_eq!(bytes, 98 + skill.name.len(), "{}", skill.name);
        assert!(bytes <= 150, "{}: {bytes} bytes beyond the description", skill.name);
    }
    // Identical across calls.
    let (again, _) = w.walk("prompts/list", "prompts", json!({})).await;
    assert_eq!(again, prompts);
    let res = w.call("prompts/list", json!({ "cursor": "garbage" })).await;
    assert_eq!(error_of(&res).0, -32602);
}

// checklist #26
#[tokio::test]
async fn prompts_get_embeds_the_exact_skill_md_and_the_task() {
    let fx = fixture();
    let mut w = Wire::start();
    let skill = &fx.catalog.skills[0];
    let document = &fx.catalog.entries[skill.document as usize];
    let got =
        w.ok("prompts/get", json!({ "name": skill.name, "arguments": { "task": "Fill in form.pdf" } })).await;
    assert_eq!(got["description"], skill.description.as_str());
    assert_server_info(&got);
    let messages = got["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "user");
    let resource = &messages[0]["content"];
    assert_eq!(resource["type"], "resource");
    assert_eq!(resource["resource"]["uri"], document.uri.as_str());
    assert_eq!(resource["resource"]["mimeType"], "text/markdown");
    // The same text resources/read serves, byte for byte.
    let read = w.ok("resources/read", json!({ "uri": document.uri })).await;
    assert_eq!(resource["resource"]["text"], read["contents"][0]["text"]);
    assert_eq!(resource["resource"]["text"].as_str().unwrap().as_bytes(), &document.bytes[..]);
    assert_eq!(
        messages[1],
        json!({ "role": "user", "content": { "type": "text", "text": format!("Follow the `{}` skill above for this task:\n\nFill in form.pdf", skill.name) } })
    );
    // Without a task.
    let got = w.ok("prompts/get", json!({ "name": skill.name })).await;
    let ask = got["messages"][1]["content"]["text"].as_str().unwrap();
    assert!(ask.starts_with(&format!("Follow the `{}` skill above.", skill.name)), "{ask}");
}

#[tokio::test]
async fn prompts_get_refuses_unknown_prompts_and_arguments_with_invalid_params() {
    let fx = fixture();
    let mut w = Wire::start();
    let name = fx.catalog.skills[0].name.as_str();
    let res = w.call("prompts/get", json!({ "name": format!("{name}x") })).await;
    let (code, message, data) = error_of(&res);
    assert_eq!(code, -32602);
    assert_eq!(message, format!("unknown prompt `{name}x`; did you mean `{name}`?"));
    assert_eq!(data["repair"]["params"]["name"], name);
    assert_repair(&res);
    let res = w.call("prompts/get", json!({ "name": "zzzzzzzzzzzzzzzzzzzz" })).await;
    assert_eq!(error_of(&res).1, "unknown prompt `zzzzzzzzzzzzzzzzzzzz`; prompts/list names every prompt");
    for (arguments, why) in [
        (
            json!({ "topic": "x" }),
            format!("prompt `{name}` has no argument `topic`; its only argument is `task`"),
        ),
        (json!({ "task": 3 }), "argument `task` must be a string".to_owned()),
    ] {
        let res = w.call("prompts/get", json!({ "name": name, "arguments": arguments })).await;
        let (code, message, _) = error_of(&res);
        assert_eq!((code, message), (-32602, why));
        assert_repair(&res);
    }
    let res = w.call("prompts/get", json!({})).await;
    assert_eq!(error_of(&res).0, -32602, "missing name: invalid params, not method not found");
}

#[tokio::test]
async fn prompt_arguments_complete_and_unknown_ones_are_refused() {
    let fx = fixture();
    let mut w = Wire::start();
    let name = fx.catalog.skills[0].name.as_str();
    let complete = |prompt: &str, argument: &str| json!({ "ref": { "type": "ref/prompt", "name": prompt }, "argument": { "name": argument, "value": "fi" } });
    let got = w.ok("completion/complete", complete(name, "task")).await;
    assert_eq!(got["completion"]["values"], json!([]), "`task` is free text");
    for (prompt, argument) in [(name, "topic"), ("no-such-skill", "task")] {
        let res = w.call("completion/complete", complete(prompt, argument)).await;
        let (code, _, _): (i64, String, Value) = error_of(&res);
        assert_eq!(code, -32602, "{prompt} {argument}");
    }
}
