//! The Skills extension (SEP-2640): `skills/list` manifests, `skills/get`, skill directories,
//! and skill alias URIs.

use super::*;

// ---------------------------------------------------------------------------------------------
// Skills extension.
// ---------------------------------------------------------------------------------------------

/// The YAML frontmatter of a SKILL.md as JSON, parsed by a second YAML implementation.
fn parse_frontmatter(text: &str) -> Value {
    let matter = gray_matter::Matter::<gray_matter::engine::YAML>::new();
    matter.parse::<Value>(text).expect("frontmatter parses").data.expect("SKILL.md has frontmatter")
}

// checklist #14, #16, #18
#[tokio::test]
async fn skills_list_manifests_verify_against_the_bytes_resources_read_returns() {
    let fx = fixture();
    let mut w = Wire::start();
    let (skills, pages) = w.walk("skills/list", "skills", json!({})).await;
    for page in &pages {
        assert_eq!(page["resultType"], "complete");
        assert_eq!(page["ttlMs"], json!(300_000));
        assert_eq!(page["cacheScope"], "public");
        assert_server_info(page);
    }
    assert_eq!(skills.len(), fx.catalog.skills.len(), "every skill is listed");
    let name_rule = |n: &str| {
        !n.is_empty()
            && n.len() <= 64
            && n.split('-').all(|part| {
                !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            })
    };
    let mut verified_blobs = 0;
    for skill in &skills {
        let uri = skill["uri"].as_str().unwrap();
        let name = skill["frontmatter"]["name"].as_str().unwrap();
        assert!(
            uri.ends_with(&format!("/{name}/SKILL.md")) || uri == format!("skill://{name}/SKILL.md"),
            "{uri}"
        );
        assert!(name_rule(name), "{name} follows the Agent Skills name rule (ASCII)");
        let description = skill["frontmatter"]["description"].as_str().unwrap();
        assert!(!description.is_empty() && description.chars().count() <= 1024);
        let manifest: Vec<SkillResource> = serde_json::from_value(skill["resources"].clone()).unwrap();
        assert!(manifest.len() <= 512);
        assert!(manifest.iter().map(|r| r.size).sum::<u64>() <= 16 * 1024 * 1024);
        let unique: BTreeSet<&str> = manifest.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(unique.len(), manifest.len(), "each file once");
        assert!(unique.contains(uri), "the manifest lists SKILL.md itself");
        let root = uri.strip_suffix("SKILL.md").unwrap();
        for file in &manifest {
            assert!(file.uri.starts_with(root), "{} is inside the skill", file.uri);
            assert!(rmcp::model::is_sha256_digest(&file.digest), "{}", file.digest);
            let read = w.ok("resources/read", json!({ "uri": file.uri })).await;
            let c = &read["contents"][0];
            let bytes = decode_contents(c);
            file.verify(&bytes).unwrap_or_else(|e| panic!("{} fails verification: {e}", file.uri));
            if c.get("blob").is_some() {
                verified_blobs += 1;
            }
            if file.uri == uri {
                // Hosts re-parse SKILL.md and compare the frontmatter field by field.
                let served = parse_frontmatter(c["text"].as_str().unwrap());
                assert_eq!(served, skill["frontmatter"], "{uri}: frontmatter differs from the served YAML");
            }
        }
        // The skill's files on disk are exactly the manifest (no file left out).
        let dir = fx
            .root
            .join("skills")
            .join(uri.strip_prefix("skill://").unwrap().strip_suffix("/SKILL.md").unwrap());
        let on_disk = walkdir::WalkDir::new(&dir)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .filter(|e| {
                !e.path()
                    .strip_prefix(&dir)
                    .unwrap()
                    .components()
                    .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
            })
            .count();
        assert_eq!(on_disk, manifest.len(), "{uri}: manifest lists every file of the skill directory");
    }
    assert!(verified_blobs > 0, "binary skill files are verified too");
    // The rmcp client reads the same entries.
    let client = rmcp_client().await;
    let typed = client.list_all_skills().await.unwrap();
    assert_eq!(typed.len(), skills.len());
    for s in &typed {
        assert!(matches!(s.resources, SkillResources::Files(_)));
    }
    client.cancel().await.unwrap();
}

// checklist #15
#[tokio::test]
async fn skills_get_returns_the_listed_entry_and_refuses_anything_else() {
    let fx = fixture();
    let mut w = Wire::start();
    let (skills, _) = w.walk("skills/list", "skills", json!({})).await;
    for skill in &skills {
        let got = w.ok("skills/get", json!({ "uri": skill["uri"] })).await;
        assert_eq!(got["skill"], *skill);
        assert_eq!(got["ttlMs"], json!(300_000));
        assert_eq!(got["cacheScope"], "public");
        assert_server_info(&got);
    }
    let skill = &fx.catalog.skills[0];
    let file = skill.files.first().map(|f| fx.catalog.entries[f.entry as usize].uri.clone());
    for bad in [
        Some("skill://no-such-skill/SKILL.md".to_owned()),
        Some(format!("skill://{}x/SKILL.md", skill.path)),
        Some(format!("skill://{}/skill.md", skill.path)),
        Some(format!("skill://{}", skill.path)),
        file,
    ]
    .into_iter()
    .flatten()
    {
        let res = w.call("skills/get", json!({ "uri": bad })).await;
        let (code, message, _) = error_of(&res);
        assert_eq!(code, -32602, "{bad}: {message}");
    }
    let res = w.call("skills/get", json!({ "uri": format!("skill://{}x/SKILL.md", skill.path) })).await;
    assert_repair(&res);
}

// checklist #17
#[tokio::test]
async fn directory_read_lists_exactly_the_direct_children_of_every_skill_directory() {
    let mut w = Wire::start();
    let (skills, _) = w.walk("skills/list", "skills", json!({})).await;
    let mut dirs_checked = 0;
    for skill in &skills {
        let root = skill["uri"].as_str().unwrap().strip_suffix("/SKILL.md").unwrap().to_owned();
        let files: Vec<String> = skill["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap().to_owned())
            .collect();
        // Expected tree from the manifest: every directory and its direct children.
        let mut expected: BTreeMap<String, BTreeSet<(String, bool)>> = BTreeMap::new();
        expected.entry(root.clone()).or_default();
        for f in &files {
            let rel = f.strip_prefix(&format!("{root}/")).unwrap();
            let mut parent = root.clone();
            let parts: Vec<&str> = rel.split('/').collect();
            for (i, part) in parts.iter().enumerate() {
                let child = format!("{parent}/{part}");
                let is_dir = i + 1 < parts.len();
                expected.entry(parent.clone()).or_default().insert((child.clone(), is_dir));
                if is_dir {
                    expected.entry(child.clone()).or_default();
                }
                parent = child;
            }
        }
        for (dir, children) in &expected {
            let (items, pages) = w.walk("resources/directory/read", "resources", json!({ "uri": dir })).await;
            assert_server_info(&pages[0]);
            let got: BTreeSet<(String, bool)> = items
                .iter()
                .map(|r| (r["uri"].as_str().unwrap().to_owned(), r["mimeType"] == json!("inode/directory")))
                .collect();
            assert_eq!(&got, children, "{dir}");
            for (child, _) in &got {
                assert!(!child.ends_with('/'), "no trailing slash: {child}");
            }
            dirs_checked += 1;
        }
        // A file or an unknown URI is not a directory.
        for bad in [files[0].clone(), format!("{root}-nope"), format!("{root}/")] {
            let res = w.call("resources/directory/read", json!({ "uri": bad })).await;
            assert_eq!(error_of(&res).0, -32602, "{bad}");
            assert_repair(&res);
        }
    }
    assert!(dirs_checked > skills.len(), "some skills have subdirectories");
}

#[tokio::test]
async fn skill_alias_uris_return_the_canonical_bytes() {
    let fx = fixture();
    let mut w = Wire::start();
    let mut checked = 0;
    for skill in &fx.catalog.skills {
        let canonical = &fx.catalog.entries[skill.document as usize].uri;
        let alias = format!("resource://skills/{}/document", skill.name);
        let a = w.ok("resources/read", json!({ "uri": alias })).await;
        let c = w.ok("resources/read", json!({ "uri": canonical })).await;
        assert_eq!(a["contents"][0]["text"], c["contents"][0]["text"], "{alias}");
        assert_eq!(a["contents"][0]["uri"], json!(alias), "the alias is echoed");
        for file in &skill.files {
            let canonical = &fx.catalog.entries[file.entry as usize].uri;
            let alias =
                format!("resource://skills/{}/references/{}", skill.name, file.ref_id.replace('/', "%2F"));
            let a = w.ok("resources/read", json!({ "uri": alias })).await;
            let c = w.ok("resources/read", json!({ "uri": canonical })).await;
            assert_eq!(decode_contents(&a["contents"][0]), decode_contents(&c["contents"][0]), "{alias}");
            assert_eq!(a["contents"][0]["mimeType"], c["contents"][0]["mimeType"]);
            checked += 1;
        }
    }
    assert!(checked > 10, "skill files checked through their ref_id aliases: {checked}");
}
