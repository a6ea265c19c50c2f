//! Frontmatter dates (`updated`, `last_updated`): what a date may look like and its normal form.
//!
//! Pure: a string in, a normalised string or nothing out; reporting is the caller's.

/// Parses and normalises a date: `YYYY-MM-DD` stays as is; a date-time (`T` or one space between
/// date and time, optional fraction, `Z`/`±HH:MM`/`±HHMM` or no offset) becomes RFC 3339 with `T`,
/// and `Z` when no offset was given (frontmatter dates carry no zone, UTC is the only neutral
/// choice). Returns `None` for anything else, including impossible days like `2026-02-30`.
pub(crate) fn parse_date(s: &str) -> Option<String> {
    let s = s.trim();
    let num = |part: &str, len: usize| {
        (part.len() == len && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse::<u32>().ok())
            .flatten()
    };
    let (date, time) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(s[i + 1..].trim_start())),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let (y, m, d) = (num(parts.next()?, 4)?, num(parts.next()?, 2)?, num(parts.next()?, 2)?);
    if parts.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    let Some(time) = time else { return Some(date.to_owned()) };
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(i) => (&time[..i], &time[i..]),
        None => (time, ""),
    };
    let (hms, fraction) = match clock.split_once('.') {
        Some((hms, f)) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => (hms, Some(f)),
        Some(_) => return None,
        None => (clock, None),
    };
    let mut parts = hms.split(':');
    let (h, mi, sec) = (num(parts.next()?, 2)?, num(parts.next()?, 2)?, num(parts.next()?, 2)?);
    if parts.next().is_some() || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let offset = match offset {
        "" | "Z" | "z" => "Z".to_owned(),
        o => {
            let sign = &o[..1];
            let rest = o[1..].replace(':', "");
            let (oh, om) = (num(rest.get(..2)?, 2)?, num(rest.get(2..)?, 2)?);
            if oh > 23 || om > 59 {
                return None;
            }
            format!("{sign}{oh:02}:{om:02}")
        }
    };
    let fraction = fraction.map(|f| format!(".{f}")).unwrap_or_default();
    Some(format!("{date}T{h:02}:{mi:02}:{sec:02}{fraction}{offset}"))
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
