//! The cap on what a check lists, for every rule: at most
//! [`super::CheckOptions::max_issues_per_code`] issues of one code one by one, the rest summed
//! up in one issue whose fix covers them.
//!
//! The rules that can find something in every element cap themselves
//! ([`super::util::emit_findings`]), building no issue they would not list. This is the net
//! under all of them: a model read out of garbage (a corrupted count in recovery mode) can give
//! any rule one finding per element, and a report of 20,000 lines helps nobody. `repair` sees
//! the same capped list, so the summary's fix must still fix everything it stands for (see
//! [`merged_fix`]).

use super::util::{delete_op, thousands};
use super::{Fix, FixStep, Issue};
use crate::model::ElementKind;
use std::collections::HashMap;

/// Caps the issues `issues[start..]` (one rule's) at `cap` per code, replacing the rest of a
/// code by one summary issue where the first of them was.
pub(crate) fn cap_per_code(issues: &mut Vec<Issue>, start: usize, cap: usize) {
    let cap = cap.max(1);
    // A rule that caps itself lists `cap` issues and its own summary.
    let allowed = cap.saturating_add(1);
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    for issue in issues.get(start..).unwrap_or_default() {
        *counts.entry(issue.code).or_default() += 1;
    }
    if counts.values().all(|&count| count <= allowed) {
        return;
    }
    let tail = issues.split_off(start.min(issues.len()));
    let mut listed: HashMap<&'static str, usize> = HashMap::new();
    // Per capped code: where its summary goes and the issues it sums up.
    let mut rests: HashMap<&'static str, (usize, Vec<Issue>)> = HashMap::new();
    for issue in tail {
        if counts.get(issue.code).copied().unwrap_or(0) <= allowed {
            issues.push(issue);
            continue;
        }
        let shown = listed.entry(issue.code).or_default();
        if *shown < cap {
            *shown += 1;
            issues.push(issue);
            continue;
        }
        let (_, rest) = rests.entry(issue.code).or_insert_with(|| {
            // A placeholder: replaced by the summary below.
            issues.push(Issue::new(
                issue.severity,
                issue.code,
                issue.path.clone(),
                "",
                "",
            ));
            (issues.len() - 1, Vec::new())
        });
        rest.push(issue);
    }
    for (_, (at, rest)) in rests {
        if let (Some(slot), Some(summary)) = (issues.get_mut(at), summary_of(rest)) {
            *slot = summary;
        }
    }
}

/// One issue for `rest` (all of one code): where the first is, what it says, and a fix for all.
fn summary_of(rest: Vec<Issue>) -> Option<Issue> {
    let more: usize = rest.iter().map(|issue| issue.more.max(1)).sum();
    let fix = merged_fix(rest.iter().filter_map(|issue| issue.fix.as_ref()));
    let first = rest.into_iter().next()?;
    let count = thousands(more);
    Some(
        Issue::new(
            first.severity,
            first.code,
            first.path.clone(),
            format!(
                "and {count} more like this, from {}: {}",
                first.path, first.message_en
            ),
            format!("他に{count}件（{}から）: {}", first.path, first.message_ja),
        )
        .with_fix(fix)
        .summing_up(more),
    )
}

/// One fix that does what `fixes` do, as `repair` can apply it.
///
/// Fixes that only set fields leave every index as it is, so their steps are applied one after
/// the other. Deletions of one kind become one deletion of them all. Other structural fixes
/// change the indices the others name: then the field sets go first (or, when there are none,
/// the first structural fix alone), and `repair` checks again and finds the rest in its next
/// round.
fn merged_fix<'a>(fixes: impl Iterator<Item = &'a Fix>) -> Option<Fix> {
    let mut distinct: Vec<&Fix> = Vec::new();
    for fix in fixes {
        // Issues that share one fix (a whole-model fix on each) come one after the other;
        // comparing with the last only keeps this linear.
        if distinct.last() != Some(&fix) {
            distinct.push(fix);
        }
    }
    let (sets, structural): (Vec<&Fix>, Vec<&Fix>) =
        distinct.iter().partition(|fix| fix.only_sets_fields());
    let chosen = if sets.is_empty() { structural } else { sets };
    let first = *chosen.first()?;
    if chosen.len() == 1 {
        return Some(first.clone());
    }
    let count = chosen.len();
    let label = |first: &Fix| {
        (
            format!("{count} fixes like \"{}\"", first.label_en),
            format!("{count}件の修正（「{}」など）", first.label_ja),
        )
    };
    if first.only_sets_fields() {
        let steps = chosen
            .iter()
            .flat_map(|fix| fix.steps.iter().cloned())
            .collect();
        let (en, ja) = label(first);
        return Some(Fix::new(en, ja, steps));
    }
    match deletions_of_one_kind(&chosen) {
        Some((kind, mut indices)) => {
            indices.sort_unstable();
            indices.dedup();
            let (en, ja) = label(first);
            Some(Fix::new(en, ja, vec![delete_op(kind, indices)]))
        }
        None => Some(first.clone()),
    }
}

/// The kind and indices when every fix only deletes elements of one kind.
fn deletions_of_one_kind(fixes: &[&Fix]) -> Option<(ElementKind, Vec<usize>)> {
    let mut kind = None;
    let mut all = Vec::new();
    for fix in fixes {
        for step in &fix.steps {
            let FixStep::Delete { kind: k, indices } = step else {
                return None;
            };
            if kind.is_some_and(|kind| kind != *k) {
                return None;
            }
            kind = Some(*k);
            all.extend_from_slice(indices);
        }
    }
    kind.map(|kind| (kind, all))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::field;
    use crate::model::Material;
    use crate::path::ModelPath;
    use crate::validate::Severity;
    use crate::validate::util::set_op;

    fn issue(i: usize, fix: Option<Fix>) -> Issue {
        Issue::new(
            Severity::Warning,
            "W-TEST",
            ModelPath::element(ElementKind::Material, i),
            format!("material {i}"),
            format!("材質{i}"),
        )
        .with_fix(fix)
    }

    fn set(i: usize) -> Fix {
        Fix::new(
            "set",
            "set",
            vec![set_op(field::<Material>().edge_size(), vec![i], 1.0)],
        )
    }

    fn delete(i: usize) -> Fix {
        Fix::new(
            "delete",
            "削除",
            vec![delete_op(ElementKind::Material, vec![i])],
        )
    }

    #[test]
    fn the_rest_of_a_code_is_one_summary_whose_fix_covers_it() {
        let mut issues: Vec<Issue> = (0..10).map(|i| issue(i, Some(set(i)))).collect();
        issues.insert(
            0,
            Issue::new(
                Severity::Error,
                "E-OTHER",
                ModelPath::list(ElementKind::Material),
                "x",
                "x",
            ),
        );
        cap_per_code(&mut issues, 1, 3);
        assert_eq!(issues.len(), 5);
        assert_eq!(issues[0].code, "E-OTHER");
        let summary = &issues[4];
        assert_eq!(summary.more, 7);
        assert_eq!(summary.path.to_string(), "materials[3]");
        assert!(summary.message_en.starts_with("and 7 more like this"));
        let fix = summary.fix.as_ref().expect("a fix");
        assert_eq!(fix.steps.len(), 7);
        assert!(fix.only_sets_fields());
    }

    #[test]
    fn a_rule_that_caps_itself_is_left_alone() {
        let mut issues: Vec<Issue> = (0..4).map(|i| issue(i, None)).collect();
        let before = issues.clone();
        cap_per_code(&mut issues, 0, 3);
        assert_eq!(issues, before);
    }

    #[test]
    fn deletions_merge_and_a_summary_counts_what_it_sums_up() {
        let mut issues: Vec<Issue> = (0..5).map(|i| issue(i, Some(delete(i)))).collect();
        issues.push(issue(9, None).summing_up(100));
        cap_per_code(&mut issues, 0, 2);
        assert_eq!(issues.len(), 3);
        assert_eq!(issues[2].more, 103);
        let fix = issues[2].fix.as_ref().expect("a fix");
        assert_eq!(
            fix.steps,
            vec![delete_op(ElementKind::Material, vec![2, 3, 4])]
        );
    }

    #[test]
    fn field_sets_go_before_other_structural_fixes() {
        let mut issues = vec![issue(0, None), issue(1, None)];
        issues.push(issue(2, Some(delete(2))));
        issues.push(issue(3, Some(set(3))));
        issues.push(issue(
            4,
            Some(Fix::new(
                "move",
                "move",
                vec![FixStep::MoveTo {
                    kind: ElementKind::Material,
                    indices: vec![4],
                    to: 0,
                }],
            )),
        ));
        cap_per_code(&mut issues, 0, 2);
        let fix = issues[2].fix.as_ref().expect("a fix");
        assert_eq!(fix, &set(3));
    }
}
