//! Resources: listing, reading exact bytes, templates and their completion, bounded reads,
//! refusals, pagination and malformed params.

use super::*;

// ---------------------------------------------------------------------------------------------
// Resources.
// ---------------------------------------------------------------------------------------------

// checklist #5, #23, #24
#[tokio::test]
async fn resources_list_walk_lists_every_resource_once_identically_across_connections() {
    let fx = fixture();
    let mut first = Wire::start();
    let (items, pages) = first.walk("resources/list", "resources", json!({})).await;
    assert!(pages.len() >= 2, "the fixture spans several pages");
    for page in &pages {
        assert_eq!(page["resultType"], "complete");
        assert_eq!(page["ttlMs"], json!(300_000));
        assert_eq!(page["cacheScope"], "public", "one cacheScope for every page");
        assert_server_info(page);
        audit_meta_keys(page);
    }
    let uris: Vec<String> = items.iter().map(|r| r["uri"].as_str().unwrap().to_owned()).collect();
    let unique: BTreeSet<String> = uris.iter().cloned().collect();
    assert_eq!(unique.len(), uris.len(), "no resource is listed twice");
    assert_eq!(unique, listed_uris(&fx.catalog), "every entry and catalog singleton, nothing else");
    // Alias families are templates only.
    assert!(
        uris.iter()
            .all(|u| !u.starts_with("resource://skills/") && !u.starts_with("resource://catalog/skills/"))
    );
    // Byte-identical on another connection and on a repeated walk.
    let mut second = Wire::start();
    let (_, pages_again) = second.walk("resources/list", "resources", json!({})).await;
    assert_eq!(serde_json::to_string(&pages).unwrap(), serde_json::to_string(&pages_again).unwrap());
    let (_, pages_thrice) = first.walk("resources/list", "resources", json!({})).await;
    assert_eq!(pages, pages_thrice);
    // Native fields: size and blake3 of docs match the catalog, lastModified never the clock.
    for r in &items {
        let uri = r["uri"].as_str().unwrap();
        if let Some(e) = fx.catalog.entries.iter().find(|e| e.uri == uri) {
            assert_eq!(r["size"], json!(e.size), "{uri}");
            assert_eq!(r["mimeType"], json!(e.mime), "{uri}");
            assert_eq!(r["_meta"]["dev.folio/blake3"], json!(e.blake3), "{uri}");
            assert_eq!(r["_meta"]["dev.folio/path"], json!(e.path), "{uri}");
        }
    }
    for doc in fx.catalog.docs.iter().filter(|d| d.updated.is_some()).take(20) {
        let r = items.iter().find(|r| r["name"] == json!(doc.path)).unwrap();
        let stamp = r["annotations"]["lastModified"].as_str().unwrap();
        assert!(stamp.starts_with(doc.updated.as_deref().unwrap()), "{stamp} comes from frontmatter");
    }
}

// checklist #6
#[tokio::test]
async fn every_skill_document_is_listed_with_its_frontmatter_name_and_description() {
    let fx = fixture();
    let mut w = Wire::start();
    let (items, _) = w.walk("resources/list", "resources", json!({})).await;
    for skill in &fx.catalog.skills {
        let uri = &fx.catalog.entries[skill.document as usize].uri;
        let r = items.iter().find(|r| r["uri"] == json!(uri)).unwrap_or_else(|| panic!("{uri} listed"));
        assert_eq!(r["mimeType"], "text/markdown");
        assert_eq!(r["name"], json!(skill.frontmatter.get().unwrap()["name"]));
        assert_eq!(r["description"], json!(skill.frontmatter.get().unwrap()["description"]));
    }
}

// checklist #8, #23, #24, and the same-URI-both-ways identity on every entry
#[tokio::test]
async fn every_listed_uri_reads_back_its_exact_bytes_and_the_tool_returns_identical_text() {
    let fx = fixture();
    let max = fx.catalog.settings.max_read_bytes;
    let mut w = Wire::start();
    let mut blobs = 0;
    for uri in listed_uris(&fx.catalog) {
        let read = w.ok("resources/read", json!({ "uri": uri })).await;
        assert_eq!(read["resultType"], "complete");
        assert_eq!(read["ttlMs"], json!(300_000));
        assert_eq!(read["cacheScope"], "public");
        assert_server_info(&read);
        audit_meta_keys(&read);
        let contents = read["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 1, "{uri}");
        let c = &contents[0];
        assert_eq!(c["uri"], json!(uri));
        let bytes = decode_contents(c);
        if let Some(e) = fx.catalog.entries.iter().find(|e| e.uri == uri) {
            assert_eq!(c["mimeType"], json!(e.mime), "{uri}");
            assert_eq!(c["_meta"]["dev.folio/blake3"], json!(e.blake3));
            if e.kind == EntryKind::Doc && e.size > max {
                assert!(
                    c["text"].as_str().unwrap().contains("[folio: truncated at line"),
                    "{uri} is bounded"
                );
            } else {
                assert_eq!(bytes.len() as u64, e.size, "{uri} size");
                assert_eq!(blake3::hash(&bytes).to_hex().to_string(), e.blake3, "{uri} bytes");
                if let Some(sha) = &e.sha256 {
                    assert_eq!(&rmcp::model::sha256_digest(&bytes), sha, "{uri} sha256");
                }
            }
            if c.get("blob").is_some() {
                blobs += 1;
                assert!(!e.is_text, "{uri}: only non-text entries are blobs");
            }
        }
        // The same URI through the tool: identical text (or blob).
        let tool = w.ok("tools/call", json!({ "name": "read_resource", "arguments": { "uri": uri } })).await;
        assert_eq!(tool["isError"], json!(false), "{uri}: {tool}");
        let sc = &tool["structuredContent"];
        match c["text"].as_str() {
            Some(text) => {
                assert_eq!(sc["text"].as_str(), Some(text), "{uri}: tool text differs from resources/read");
                assert_eq!(tool["content"][0]["text"].as_str(), Some(text), "{uri}: text block differs");
            }
            None => assert_eq!(sc["blob"], c["blob"], "{uri}: tool blob differs"),
        }
        assert_eq!(sc["mime_type"], c["mimeType"]);
    }
    assert!(blobs > 0, "the agent-skills corpus has binary files (fonts, images)");
}

// checklist #7, #11
#[tokio::test]
async fn every_template_expanded_with_completed_values_is_readable() {
    let mut w = Wire::start();
    let (templates, pages) = w.walk("resources/templates/list", "resourceTemplates", json!({})).await;
    assert_eq!(pages[0]["ttlMs"], json!(300_000));
    assert_server_info(&pages[0]);
    let names: BTreeSet<&str> = templates.iter().map(|t| t["uriTemplate"].as_str().unwrap()).collect();
    for expected in [
        "resource://catalog/skills_index{?q,tag,capability,cursor,limit}",
        "resource://catalog/skills/{skill_id}",
        "resource://catalog/docs_index{?q,tag,category,lang,prefix,updated_since,cursor,limit}",
        "resource://catalog/docs/{+path}",
        "resource://docs/{+path}",
        "resource://docs/{+path}{?section,lines}",
        "skill://{+skill_path}/SKILL.md",
        "skill://{+skill_path}/{+file}",
        "resource://skills/{skill_id}/document",
        "resource://skills/{skill_id}/references/{ref_id}",
    ] {
        assert!(names.contains(expected), "{expected} listed");
    }
    let mut reads = 0;
    for t in &templates {
        let template = t["uriTemplate"].as_str().unwrap();
        let vars = variables(template);
        // Complete the first variable, then each following one in the context of the previous.
        let mut context = serde_json::Map::new();
        let mut chosen: Vec<(String, Vec<String>)> = Vec::new();
        for var in &vars {
            let res = w
                .ok(
                    "completion/complete",
                    json!({
                        "ref": { "type": "ref/resource", "uri": template },
                        "argument": { "name": var, "value": "" },
                        "context": { "arguments": context },
                    }),
                )
                .await;
            assert_server_info(&res);
            let values: Vec<String> = res["completion"]["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect();
            assert!(values.len() <= 100);
            assert_eq!(
                res["completion"]["hasMore"],
                json!(res["completion"]["total"].as_u64().unwrap() > 100)
            );
            if let Some(first) = values.first() {
                context.insert(var.clone(), json!(first));
            }
            chosen.push((var.clone(), values));
        }
        // Expand with up to 5 values of the last completable variable, the others fixed.
        let Some(last_idx) = chosen.iter().rposition(|(_, v)| !v.is_empty()) else {
            // Only free-form variables: the template without them is the index itself.
            let uri = expand(template, &BTreeMap::new());
            w.ok("resources/read", json!({ "uri": uri })).await;
            reads += 1;
            continue;
        };
        for value in chosen[last_idx].1.iter().take(5) {
            let mut values = BTreeMap::new();
            for (i, (var, vals)) in chosen.iter().enumerate() {
                if i == last_idx {
                    values.insert(var.clone(), value.clone());
                } else if let Some(first) = vals.first()
                    && !template.contains(&format!("?{var}"))
                    && !template.contains(&format!(",{var}"))
                {
                    values.insert(var.clone(), first.clone());
                }
            }
            let uri = expand(template, &values);
            let res = w.call("resources/read", json!({ "uri": uri })).await;
            assert!(res.get("error").is_none(), "{template} with {values:?} → {uri} is readable: {res}");
            reads += 1;
        }
    }
    assert!(reads >= 20, "expanded and read {reads} URIs");
}

/// The variables of an RFC 6570 template, in order.
fn variables(template: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in template.split('{').skip(1) {
        let inner = part.split('}').next().unwrap();
        for v in inner.trim_start_matches(['+', '?']).split(',') {
            out.push(v.to_owned());
        }
    }
    out
}

/// RFC 6570 expansion for the operators our templates use: `{x}` (unreserved only), `{+x}`
/// (reserved kept), `{?a,b}` (form-style query; undefined variables are skipped).
fn expand(template: &str, values: &BTreeMap<String, String>) -> String {
    fn enc(s: &str, keep_reserved: bool) -> String {
        s.bytes()
            .map(|b| {
                let unreserved = b.is_ascii_alphanumeric() || b"-._~".contains(&b);
                let reserved = b":/?#[]@!$&'()*+,;=".contains(&b);
                if unreserved || (keep_reserved && reserved) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect()
    }
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').unwrap() + start;
        let expr = &rest[start + 1..end];
        if let Some(names) = expr.strip_prefix('?') {
            let pairs: Vec<String> = names
                .split(',')
                .filter_map(|n| values.get(n).map(|v| format!("{n}={}", enc(v, false))))
                .collect();
            if !pairs.is_empty() {
                out.push('?');
                out.push_str(&pairs.join("&"));
            }
        } else if let Some(name) = expr.strip_prefix('+') {
            out.push_str(&enc(values.get(name).map_or("", String::as_str), true));
        } else {
            out.push_str(&enc(values.get(expr).map_or("", String::as_str), false));
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

// checklist #9
#[tokio::test]
async fn unknown_resource_is_invalid_params_with_its_uri_and_a_repair() {
    let mut w = Wire::start();
    for uri in [
        "resource://docs/no/such/page.md",
        "skill://no-such-skill/SKILL.md",
        "resource://catalog/skills/no-such-skill",
        "resource://catalog/docs/nope.md",
        "resource://skills/no-such-skill/document",
        "https://example.com/x",
        "",
    ] {
        let res = w.call("resources/read", json!({ "uri": uri })).await;
        let (code, _, data) = error_of(&res);
        assert_eq!(code, -32602, "{uri}");
        assert_eq!(data["uri"], json!(uri));
        assert_repair(&res);
        assert!(res.get("result").is_none(), "never an empty contents");
    }
}

#[tokio::test]
async fn misspelled_ids_get_a_did_you_mean() {
    let fx = fixture();
    let name = &fx.catalog.skills[0].name;
    let typo = format!("{name}x");
    let mut w = Wire::start();
    let res = w.call("resources/read", json!({ "uri": format!("resource://catalog/skills/{typo}") })).await;
    let (_, message, data) = error_of(&res);
    assert!(message.contains(&format!("did you mean `resource://catalog/skills/{name}`")), "{message}");
    assert_eq!(data["repair"]["params"]["uri"], json!(format!("resource://catalog/skills/{name}")));
    let tool = w
        .ok("tools/call", json!({ "name": "get_skill_document_by_id", "arguments": { "skill_id": typo } }))
        .await;
    assert_eq!(tool["isError"], json!(true));
    let text = tool["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        format!(
            "No skill `{typo}`. Did you mean `{name}`? Call search_patterns or list_resources to see what exists."
        )
    );
    assert_eq!(tool["structuredContent"]["repair"]["tool"], "get_skill_document_by_id");
    assert_eq!(tool["structuredContent"]["repair"]["arguments"]["skill_id"], json!(name));
}

#[tokio::test]
async fn traversal_and_malformed_uris_are_refused_before_any_lookup() {
    let fx = fixture();
    let doc = &fx.catalog.docs[0].path;
    let skill = &fx.catalog.skills[0];
    let mut w = Wire::start();
    for uri in [
        "resource://docs/../secret.md".to_owned(),
        "resource://docs/%2e%2e/secret.md".to_owned(),
        "resource://docs/%2E%2E%2Fsecret.md".to_owned(),
        format!("resource://docs/{doc}/../{doc}"),
        "resource://docs/a//b.md".to_owned(),
        "resource://docs/./a.md".to_owned(),
        "resource://docs/a\\b.md".to_owned(),
        "resource://docs/a%5Cb.md".to_owned(),
        "resource://docs/a\u{0}b.md".to_owned(),
        "resource://docs/a%00b.md".to_owned(),
        "resource://docs/%ff%fe.md".to_owned(),
        "resource://docs/%zz.md".to_owned(),
        format!("skill://{}/../../etc/passwd", skill.path),
        format!("skill://{}/%2e%2e/%2e%2e/etc/passwd", skill.path),
        "resource://catalog/skills/a%2F..%2Fb".to_owned(),
        "resource://skills/x%2F..%2Fy/document".to_owned(),
        format!("resource://docs/{doc}?lines=9-1"),
        format!("resource://docs/{doc}?nope=1"),
        format!("resource://docs/{doc}#frag"),
    ] {
        let res = w.call("resources/read", json!({ "uri": uri })).await;
        let (code, message, data) = error_of(&res);
        assert_eq!(code, -32602, "{uri:?}: {message}");
        assert_eq!(data["uri"], json!(uri));
        assert_repair(&res);
        assert!(!message.contains('\0') && !message.contains('\n'), "messages are one printable line");
    }
    // A legitimately encoded path (`%2F` decodes to `/` once) still reads.
    let encoded = doc.replace('/', "%2F");
    w.ok("resources/read", json!({ "uri": format!("resource://docs/{encoded}") })).await;
}

#[tokio::test]
async fn sections_and_line_ranges_select_exact_lines() {
    let fx = fixture();
    let doc =
        fx.catalog.docs.iter().find(|d| d.outline.get().unwrap().len() >= 3).expect("a doc with sections");
    let entry = &fx.catalog.entries[doc.entry as usize];
    let text = std::str::from_utf8(&entry.bytes).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut w = Wire::start();
    let section = &doc.outline.get().unwrap()[1];
    let uri = format!("resource://docs/{}?section={}", doc.path, section.id);
    let read = w.ok("resources/read", json!({ "uri": uri })).await;
    let expected: String = lines[section.line_start as usize - 1..section.line_end as usize].concat();
    assert_eq!(read["contents"][0]["text"].as_str().unwrap(), expected);
    let tool = w
        .ok("tools/call", json!({ "name": "read_resource", "arguments": { "uri": format!("resource://docs/{}", doc.path), "section": section.id } }))
        .await;
    assert_eq!(tool["structuredContent"]["text"].as_str().unwrap(), expected, "tool and resource agree");
    assert_eq!(tool["structuredContent"]["start_line"], json!(section.line_start));
    assert_eq!(tool["structuredContent"]["total_lines"], json!(entry.total_lines));
    let read =
        w.ok("resources/read", json!({ "uri": format!("resource://docs/{}?lines=2-3", doc.path) })).await;
    assert_eq!(read["contents"][0]["text"].as_str().unwrap(), lines[1..3].concat());
    let tool = w
        .ok("tools/call", json!({ "name": "read_resource", "arguments": { "uri": format!("resource://docs/{}", doc.path), "start_line": 2, "end_line": 3 } }))
        .await;
    assert_eq!(tool["structuredContent"]["text"].as_str().unwrap(), lines[1..3].concat());
    let bad = w
        .call(
            "resources/read",
            json!({ "uri": format!("resource://docs/{}?section=no-such-heading", doc.path) }),
        )
        .await;
    let (code, message, data) = error_of(&bad);
    assert_eq!(code, -32602);
    assert!(message.contains("no section `no-such-heading`"), "{message}");
    assert_eq!(data["param"], "section");
    assert_eq!(data["repair"]["params"]["name"], "get_pattern_by_id", "the outline lists the section ids");
    assert_eq!(data["repair"]["params"]["arguments"]["id"], json!(format!("resource://docs/{}", doc.path)));
}

#[tokio::test]
async fn large_docs_are_bounded_with_a_marker_naming_the_next_range() {
    // A catalog whose bound is small enough that a real doc exceeds it.
    let fx = fixture();
    let mut catalog = fx.catalog.clone();
    catalog.settings.max_read_bytes = 2048;
    let server = FolioServer::from_catalog(catalog).unwrap();
    let doc = fx
        .catalog
        .docs
        .iter()
        .find(|d| fx.catalog.entries[d.entry as usize].size > 8192)
        .expect("a doc over 8 KiB");
    let entry = &fx.catalog.entries[doc.entry as usize];
    let uri = format!("resource://docs/{}", doc.path);
    let mut w = Wire::start_with(server);
    let read = w.ok("resources/read", json!({ "uri": uri })).await;
    let text = read["contents"][0]["text"].as_str().unwrap();
    let (kept, marker) = text.rsplit_once("<!-- folio: truncated at ").expect("marker present");
    assert!(kept.len() <= 2048 + 1 && kept.ends_with('\n'), "cut on a line boundary within the bound");
    let whole = std::str::from_utf8(&entry.bytes).unwrap();
    assert!(whole.starts_with(kept), "the kept part is the doc's first bytes");
    let last_line = kept.split_inclusive('\n').count();
    let next = format!("{uri}?lines={}-{}", last_line + 1, entry.total_lines);
    assert!(marker.contains(&next), "marker names {next}: {marker}");
    assert_eq!(read["contents"][0]["_meta"]["dev.folio/next"], json!(next));
    // The tool says the same.
    let tool = w.ok("tools/call", json!({ "name": "read_resource", "arguments": { "uri": uri } })).await;
    assert_eq!(tool["structuredContent"]["truncated"], json!(true));
    assert_eq!(tool["structuredContent"]["next"], json!(next));
    assert_eq!(tool["structuredContent"]["text"].as_str(), Some(text));
    // Skill files are exempt: hosts verify the whole file.
    let skill_file =
        fx.catalog.entries.iter().find(|e| e.kind != EntryKind::Doc && e.is_text && e.size > 2048).unwrap();
    let read = w.ok("resources/read", json!({ "uri": skill_file.uri })).await;
    assert_eq!(read["contents"][0]["text"].as_str().unwrap().len() as u64, skill_file.size);
}

// ---------------------------------------------------------------------------------------------
// Pagination and malformed params.
// ---------------------------------------------------------------------------------------------

// checklist #10
#[tokio::test]
async fn garbage_cursors_and_malformed_params_are_invalid_params() {
    let fx = fixture();
    let dir = format!("skill://{}", fx.catalog.skills[0].path);
    let mut w = Wire::start();
    let huge = "A".repeat(1 << 20);
    for (method, mut params) in [
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("tools/list", json!({})),
        ("skills/list", json!({})),
        ("resources/directory/read", json!({ "uri": dir })),
    ] {
        for cursor in ["garbage", "", "eyJ4IjoxfQ", huge.as_str()] {
            params["cursor"] = json!(cursor);
            let res = w.call(method, params.clone()).await;
            let (code, message, _) = error_of(&res);
            assert_eq!(code, -32602, "{method} cursor {:?}: {message}", &cursor[..cursor.len().min(10)]);
            assert_repair(&res);
        }
    }
    // An index resource with a bad cursor: the repair is the same read without it.
    let res =
        w.call("resources/read", json!({ "uri": "resource://catalog/docs_index?tag=x&cursor=zz" })).await;
    let (code, _, data) = error_of(&res);
    assert_eq!(code, -32602);
    assert_eq!(data["repair"]["params"]["uri"], "resource://catalog/docs_index?tag=x");
    // A cursor issued for another method's list still only works where its offset exists.
    let (_, pages) = w.walk("resources/list", "resources", json!({})).await;
    let cursor = pages[0]["nextCursor"].as_str().unwrap().to_owned();
    let res = w.call("resources/templates/list", json!({ "cursor": cursor })).await;
    assert_eq!(error_of(&res).0, -32602);
    for (method, params) in [
        ("resources/read", json!({})),
        ("resources/read", json!({ "uri": 7 })),
        ("tools/call", json!({})),
        ("tools/call", json!({ "arguments": {} })),
        ("skills/get", json!({})),
        ("resources/directory/read", json!({})),
        ("completion/complete", json!({})),
        (
            "completion/complete",
            json!({ "ref": { "type": "ref/nothing" }, "argument": { "name": "x", "value": "" } }),
        ),
    ] {
        let res = w.call(method, params.clone()).await;
        let (code, message, _) = error_of(&res);
        assert_eq!(code, -32602, "{method} {params}: {message}");
        assert_repair(&res);
    }
}

// ---------------------------------------------------------------------------------------------
// Completion.
// ---------------------------------------------------------------------------------------------

// checklist #11
#[tokio::test]
async fn completion_is_ranked_scoped_and_rejects_unknown_templates_and_arguments() {
    let fx = fixture();
    let mut w = Wire::start();
    let complete = |template: &str, name: &str, value: &str, context: Value| {
        json!({
            "ref": { "type": "ref/resource", "uri": template },
            "argument": { "name": name, "value": value },
            "context": { "arguments": context },
        })
    };
    // Prefix match over doc paths, capped at 100 with the true total.
    let res = w.ok("completion/complete", complete("resource://docs/{+path}", "path", "", json!({}))).await;
    assert_eq!(res["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(res["completion"]["total"], json!(fx.catalog.docs.len()));
    assert_eq!(res["completion"]["hasMore"], json!(true));
    let first_doc = &fx.catalog.docs[0].path;
    let prefix: String = first_doc.chars().take(first_doc.find('/').map_or(3, |i| i + 1)).collect();
    let res =
        w.ok("completion/complete", complete("resource://docs/{+path}", "path", &prefix, json!({}))).await;
    for v in res["completion"]["values"].as_array().unwrap() {
        assert!(v.as_str().unwrap().to_lowercase().contains(&prefix.to_lowercase()));
    }
    // Exact match ranks first.
    let name = &fx.catalog.skills[0].name;
    let res = w
        .ok(
            "completion/complete",
            complete("resource://catalog/skills/{skill_id}", "skill_id", name, json!({})),
        )
        .await;
    assert_eq!(res["completion"]["values"][0], json!(name));
    // Sections are scoped by path.
    let doc = fx.catalog.docs.iter().find(|d| d.outline.get().unwrap().len() >= 2).unwrap();
    let res = w
        .ok(
            "completion/complete",
            complete("resource://docs/{+path}{?section,lines}", "section", "", json!({ "path": doc.path })),
        )
        .await;
    let got: BTreeSet<String> = res["completion"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let want: BTreeSet<String> = doc.outline.get().unwrap().iter().map(|s| s.id.clone()).take(100).collect();
    assert_eq!(got, want);
    // Files are scoped by the skill.
    let skill = fx.catalog.skills.iter().max_by_key(|s| s.files.len()).unwrap();
    let res = w
        .ok(
            "completion/complete",
            complete("skill://{+skill_path}/{+file}", "file", "", json!({ "skill_path": skill.path })),
        )
        .await;
    let got: BTreeSet<String> = res["completion"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let mut want: BTreeSet<String> = skill.files.iter().map(|f| f.rel_path.clone()).collect();
    want.insert("SKILL.md".to_owned());
    assert_eq!(got, want.into_iter().take(100).collect());
    // Unknown template or argument → -32602.
    for bad in [
        complete("resource://nothing/{x}", "x", "", json!({})),
        complete("resource://docs/{+path}", "nope", "", json!({})),
        json!({ "ref": { "type": "ref/prompt", "name": "x" }, "argument": { "name": "x", "value": "" } }),
    ] {
        let res = w.call("completion/complete", bad).await;
        assert_eq!(error_of(&res).0, -32602);
        assert_repair(&res);
    }
}
