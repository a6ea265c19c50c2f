//! The program `folio bundle` copies, without what only a debugger reads: on a 64-bit
//! little-endian ELF executable (Linux), the sections the loader never maps (`.debug_*`,
//! `.symtab`, `.strtab`, `.comment`) are dropped, as `strip` does. A `cargo build --release`
//! binary keeps line tables and its symbol table for backtraces; a bundle handed to users does
//! not need them, and they are most of its size.
//!
//! How: linkers place the sections the loader maps first and the others after them, then the
//! section header table. The stripped image is the file up to the end of the last mapped byte,
//! then a section-name table of the kept sections' names, then a new section header table
//! naming the sections kept. The
//! program's headers, code and data are not moved, so the program runs as it did.
//!
//! Must not: change a byte the loader maps, or guess. Anything it does not recognise (another
//! format, 32-bit or big-endian ELF, an unmapped section placed among mapped ones, an offset
//! outside the file) is returned unchanged, and the bundle carries the program as it is.

/// `SHF_ALLOC`: the section is mapped when the program is loaded.
const SHF_ALLOC: u64 = 0x2;
/// `SHF_INFO_LINK`: the section's `sh_info` is a section index.
const SHF_INFO_LINK: u64 = 0x40;
/// `SHT_NOBITS`: the section takes no bytes of the file (`.bss`).
const SHT_NOBITS: u32 = 8;
/// `SHT_REL` and `SHT_RELA`, whose `sh_info` names the section they relocate.
const SHT_REL: u32 = 9;
const SHT_RELA: u32 = 4;
/// The size of a 64-bit section header.
const SHDR: usize = 64;

/// `program` without its unmapped sections, or `program` unchanged when it has none or is not
/// an executable this understands.
pub(super) fn stripped(program: Vec<u8>) -> Vec<u8> {
    strip_elf(&program).unwrap_or(program)
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// One section header, as read.
struct Section {
    header: [u8; SHDR],
    kind: u32,
    flags: u64,
    offset: u64,
    size: u64,
}

fn strip_elf(b: &[u8]) -> Option<Vec<u8>> {
    // `\x7fELF`, 64-bit, little-endian.
    if b.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let phoff = usize::try_from(u64_at(b, 0x20)?).ok()?;
    let shoff = usize::try_from(u64_at(b, 0x28)?).ok()?;
    let phentsize = usize::from(u16_at(b, 0x36)?);
    let phnum = usize::from(u16_at(b, 0x38)?);
    let shentsize = usize::from(u16_at(b, 0x3A)?);
    let shnum = usize::from(u16_at(b, 0x3C)?);
    let shstrndx = usize::from(u16_at(b, 0x3E)?);
    if shentsize != SHDR || shnum == 0 || shstrndx >= shnum {
        return None;
    }
    let sections: Vec<Section> = (0..shnum)
        .map(|i| {
            let at = shoff.checked_add(i * SHDR)?;
            let header: [u8; SHDR] = b.get(at..at + SHDR)?.try_into().ok()?;
            Some(Section {
                kind: u32_at(&header, 4)?,
                flags: u64_at(&header, 8)?,
                offset: u64_at(&header, 24)?,
                size: u64_at(&header, 32)?,
                header,
            })
        })
        .collect::<Option<_>>()?;
    // The end of what the loader maps: every program header's bytes, every mapped section's.
    let mut end = phoff.checked_add(phentsize.checked_mul(phnum)?)? as u64;
    for i in 0..phnum {
        let at = phoff + i * phentsize;
        end = end.max(u64_at(b, at + 8)?.checked_add(u64_at(b, at + 32)?)?);
    }
    let keep = |i: usize, s: &Section| i == 0 || i == shstrndx || s.flags & SHF_ALLOC != 0;
    for (i, s) in sections.iter().enumerate() {
        if i != 0 && s.flags & SHF_ALLOC != 0 && s.kind != SHT_NOBITS {
            end = end.max(s.offset.checked_add(s.size)?);
        }
    }
    let dropped: Vec<&Section> =
        sections.iter().enumerate().filter(|(i, s)| !keep(*i, s)).map(|(_, s)| s).collect();
    // Nothing to drop (a stripped program), or an unmapped section among the mapped ones.
    if dropped.is_empty() || dropped.iter().any(|s| s.kind != SHT_NOBITS && s.offset < end) {
        return None;
    }
    let end = usize::try_from(end).ok().filter(|e| *e <= b.len())?;
    let names = &sections[shstrndx];
    let names_bytes =
        b.get(usize::try_from(names.offset).ok()?..usize::try_from(names.offset + names.size).ok()?)?;

    // Old index -> new index, for the kept sections.
    let mut index = vec![0u32; shnum];
    let mut kept = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        if keep(i, s) {
            index[i] = u32::try_from(kept.len()).ok()?;
            kept.push(i);
        }
    }
    // The section-name table, with the kept sections' names only.
    let mut names_table = vec![0u8];
    let mut name_at = vec![0u32; shnum];
    for &i in &kept {
        let start = usize::try_from(u32_at(&sections[i].header, 0)?).ok()?;
        let name = names_bytes.get(start..)?;
        let name = &name[..name.iter().position(|&c| c == 0)?];
        if !name.is_empty() {
            name_at[i] = u32::try_from(names_table.len()).ok()?;
            names_table.extend_from_slice(name);
            names_table.push(0);
        }
    }
    let mut out = Vec::with_capacity(end + names_table.len() + (kept.len() + 1) * SHDR);
    out.extend_from_slice(&b[..end]);
    let names_at = out.len();
    out.extend_from_slice(&names_table);
    while !out.len().is_multiple_of(8) {
        out.push(0);
    }
    let table_at = out.len();
    for &i in &kept {
        let s = &sections[i];
        let mut header = s.header;
        header[0..4].copy_from_slice(&name_at[i].to_le_bytes());
        // A link or info index to a dropped section becomes 0 (no section).
        let link = usize::try_from(u32_at(&header, 40)?).ok()?;
        let remapped = if link < shnum && keep(link, &sections[link]) { index[link] } else { 0 };
        header[40..44].copy_from_slice(&remapped.to_le_bytes());
        if s.flags & SHF_INFO_LINK != 0 || s.kind == SHT_REL || s.kind == SHT_RELA {
            let info = usize::try_from(u32_at(&header, 44)?).ok()?;
            let remapped = if info < shnum && keep(info, &sections[info]) { index[info] } else { 0 };
            header[44..48].copy_from_slice(&remapped.to_le_bytes());
        }
        if i == shstrndx {
            header[24..32].copy_from_slice(&(names_at as u64).to_le_bytes());
            header[32..40].copy_from_slice(&(names_table.len() as u64).to_le_bytes());
        }
        out.extend_from_slice(&header);
    }
    out[0x28..0x30].copy_from_slice(&(table_at as u64).to_le_bytes());
    out[0x3C..0x3E].copy_from_slice(&u16::try_from(kept.len()).ok()?.to_le_bytes());
    out[0x3E..0x40].copy_from_slice(&u16::try_from(index[shstrndx]).ok()?.to_le_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::stripped;

    /// The names of an ELF64 file's sections, read from its section header table.
    fn section_names(b: &[u8]) -> Vec<String> {
        let num = |at: usize, len: usize| {
            b[at..at + len].iter().rev().fold(0usize, |n, &byte| (n << 8) | usize::from(byte))
        };
        let (shoff, shnum, shstrndx) = (num(0x28, 8), num(0x3C, 2), num(0x3E, 2));
        let names_at = num(shoff + shstrndx * 64 + 24, 8);
        (0..shnum)
            .map(|i| {
                let start = names_at + num(shoff + i * 64, 4);
                let end = start + b[start..].iter().position(|&c| c == 0).unwrap();
                String::from_utf8_lossy(&b[start..end]).into_owned()
            })
            .collect()
    }

    #[test]
    fn what_is_not_elf_is_returned_unchanged() {
        for program in
            [&b""[..], b"MZ\x90\0not a PE", b"\x7fELF\x01\x01 32-bit", b"\x7fELF\x02\x01 too short"]
        {
            assert_eq!(stripped(program.to_vec()), program);
        }
    }

    /// This test program (a debug build, with debug info and a symbol table) stripped: smaller,
    /// without `.debug_info` or `.symtab`, still runs (it lists its tests), and stripping it
    /// again changes nothing.
    #[cfg(target_os = "linux")]
    #[test]
    fn this_test_program_loses_its_debug_sections_and_still_runs() {
        use std::os::unix::fs::PermissionsExt as _;
        let exe = std::env::current_exe().unwrap();
        let program = std::fs::read(&exe).unwrap();
        // By the section headers (this test's own bytes hold the names as literals).
        let before = section_names(&program);
        assert!(before.iter().any(|n| n == ".debug_info"), "a debug build carries debug info: {before:?}");
        let out = stripped(program.clone());
        assert!(out.len() < program.len() / 2, "{} -> {} bytes", program.len(), out.len());
        let after = section_names(&out);
        // `.debug_gdb_scripts` is mapped, so it stays.
        for gone in [".debug_info", ".debug_line", ".debug_str", ".symtab", ".strtab", ".comment"] {
            assert!(!after.iter().any(|n| n == gone), "{gone}: {after:?}");
        }
        assert!(after.iter().any(|n| n == ".text") && after.iter().any(|n| n == ".shstrtab"), "{after:?}");
        assert_eq!(stripped(out.clone()), out, "a stripped program has nothing more to drop");
        let copy = exe.with_file_name(format!("stripped-{}", std::process::id()));
        std::fs::write(&copy, &out).unwrap();
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        let run = std::process::Command::new(&copy).args(["--list", "strip::tests"]).output().unwrap();
        std::fs::remove_file(&copy).unwrap();
        let listed = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success(), "{run:?}");
        assert!(listed.contains("this_test_program_loses_its_debug_sections_and_still_runs"), "{listed}");
    }
}
