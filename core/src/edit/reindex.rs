//! Where elements went: the renumbering one application (or undo, or redo) of an edit made to one
//! kind's list, reported in [`super::Touched::remaps`] so that selections, and anything else that
//! holds element indices, follow their elements instead of recomputing what the edit did.
//!
//! A [`Reindex`] is as small as the edit: an insertion or a deletion holds its positions (shared
//! with the edit, not copied), a reordering the runs of elements that moved together (moving 3 of
//! 1,000,000 vertices is at most 7 runs, not a million-entry map), a batch the chain of its steps.
//! Mapping an index costs a binary search per step.

use std::ops::Range;
use std::sync::Arc;

/// Elements that kept their order in a reordering: the `len` elements from old index `old` now
/// start at new index `new`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub old: u32,
    pub new: u32,
    pub len: u32,
}

/// The renumbering of one element list by one change: old index → new index, or removed; and the
/// elements the change created (new indices no old one maps to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reindex {
    /// New elements at these positions (ascending, unique indices of the list after the change);
    /// the old elements keep their order around them.
    Insert(Arc<[u32]>),
    /// The elements at these positions (ascending, unique indices of the list before the change)
    /// are gone; the others keep their order and close the gaps.
    Remove(Arc<[u32]>),
    /// A reordering of the whole list, as runs ascending by their old index.
    Reorder(Arc<[Run]>),
    /// Several renumberings, one after the other (the steps of a batch).
    Chain(Arc<[Reindex]>),
}

impl Reindex {
    /// The reordering that puts old element `order[new]` at `new` (`order` a permutation).
    #[must_use]
    pub fn from_order(order: &[u32]) -> Reindex {
        let mut runs: Vec<Run> = Vec::new();
        for (new, &old) in order.iter().enumerate() {
            match runs.last_mut() {
                Some(run) if run.old.checked_add(run.len) == Some(old) => run.len += 1,
                _ => runs.push(Run {
                    old,
                    new: new as u32,
                    len: 1,
                }),
            }
        }
        Reindex::from_runs(runs)
    }

    /// A reordering from runs in any order (empty ones are dropped, neighbours joined).
    #[must_use]
    pub fn from_runs(mut runs: Vec<Run>) -> Reindex {
        runs.retain(|r| r.len > 0);
        runs.sort_unstable_by_key(|r| r.old);
        let mut joined: Vec<Run> = Vec::with_capacity(runs.len());
        for run in runs {
            match joined.last_mut() {
                Some(last) if last.old + last.len == run.old && last.new + last.len == run.new => {
                    last.len += run.len;
                }
                _ => joined.push(run),
            }
        }
        Reindex::Reorder(joined.into())
    }

    /// The new index of old element `old`; `None` when the change removed it (or `old` was
    /// outside a reordered list).
    #[must_use]
    pub fn map(&self, old: usize) -> Option<usize> {
        match self {
            Reindex::Insert(positions) => Some(old + inserted_up_to(positions, old)),
            Reindex::Remove(positions) => {
                let before = positions.partition_point(|&p| (p as usize) < old);
                match positions.get(before) {
                    Some(&p) if p as usize == old => None,
                    _ => Some(old - before),
                }
            }
            Reindex::Reorder(runs) => {
                let after = runs.partition_point(|r| r.old as usize <= old);
                let run = runs.get(after.checked_sub(1)?)?;
                let offset = old - run.old as usize;
                (offset < run.len as usize).then_some(run.new as usize + offset)
            }
            Reindex::Chain(steps) => steps.iter().try_fold(old, |index, step| step.map(index)),
        }
    }

    /// The renumbering that undoes this one: it maps every new index back to its old one, and
    /// removes what this one created.
    #[must_use]
    pub fn inverse(&self) -> Reindex {
        match self {
            Reindex::Insert(positions) => Reindex::Remove(Arc::clone(positions)),
            Reindex::Remove(positions) => Reindex::Insert(Arc::clone(positions)),
            Reindex::Reorder(runs) => {
                let mut back: Vec<Run> = runs
                    .iter()
                    .map(|r| Run {
                        old: r.new,
                        new: r.old,
                        len: r.len,
                    })
                    .collect();
                back.sort_unstable_by_key(|r| r.old);
                Reindex::Reorder(back.into())
            }
            Reindex::Chain(steps) => {
                Reindex::Chain(steps.iter().rev().map(Self::inverse).collect())
            }
        }
    }

    /// This renumbering followed by `next`.
    #[must_use]
    pub fn then(self, next: Reindex) -> Reindex {
        let mut steps: Vec<Reindex> = Vec::new();
        for part in [self, next] {
            match part {
                Reindex::Chain(inner) => steps.extend(inner.iter().cloned()),
                single => steps.push(single),
            }
        }
        Reindex::Chain(steps.into())
    }

    /// The elements the change created, as ranges of new indices (ascending, coalesced).
    #[must_use]
    pub fn created(&self) -> Vec<Range<usize>> {
        match self {
            Reindex::Insert(positions) => ranges_of(positions.iter().map(|&p| p as usize)),
            Reindex::Remove(_) | Reindex::Reorder(_) => Vec::new(),
            Reindex::Chain(steps) => {
                let mut created: Vec<usize> = Vec::new();
                for step in steps.iter() {
                    // What earlier steps created moves with this one (or is removed by it).
                    created = created.iter().filter_map(|&i| step.map(i)).collect();
                    created.extend(step.created().into_iter().flatten());
                    created.sort_unstable();
                }
                ranges_of(created.into_iter())
            }
        }
    }

    /// The old indices the change removed, ascending.
    #[must_use]
    pub fn removed(&self) -> Vec<usize> {
        match self {
            Reindex::Remove(positions) => positions.iter().map(|&p| p as usize).collect(),
            Reindex::Insert(_) | Reindex::Reorder(_) => Vec::new(),
            Reindex::Chain(steps) => {
                let mut removed: Vec<usize> = Vec::new();
                for step in steps.iter().rev() {
                    // What later steps removed, as indices of the list before this step (an
                    // element this step created had no index before it).
                    let back = step.inverse();
                    removed = removed.iter().filter_map(|&i| back.map(i)).collect();
                    removed.extend(step.removed());
                    removed.sort_unstable();
                    removed.dedup();
                }
                removed
            }
        }
    }

    /// Heap memory held (positions and runs are shared with the edit that reported them).
    #[must_use]
    pub fn heap_size(&self) -> usize {
        match self {
            Reindex::Insert(positions) | Reindex::Remove(positions) => positions.len() * 4,
            Reindex::Reorder(runs) => runs.len() * std::mem::size_of::<Run>(),
            Reindex::Chain(steps) => steps
                .iter()
                .map(|s| std::mem::size_of::<Reindex>() + s.heap_size())
                .sum(),
        }
    }
}

/// How many of the insertion `positions` come before old element `old`: those whose count of
/// old elements before them (`position - rank`, non-decreasing) is at most `old`.
fn inserted_up_to(positions: &[u32], old: usize) -> usize {
    let (mut low, mut high) = (0usize, positions.len());
    while low < high {
        let mid = low + (high - low) / 2;
        if (positions[mid] as usize).saturating_sub(mid) <= old {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

/// Ascending indices as coalesced ranges.
fn ranges_of(indices: impl Iterator<Item = usize>) -> Vec<Range<usize>> {
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for index in indices {
        match ranges.last_mut() {
            Some(last) if last.end == index => last.end += 1,
            Some(last) if last.contains(&index) => {}
            _ => ranges.push(index..index + 1),
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies a renumbering to a list of tags the slow way: `old_len` tags 0.., inserted
    /// elements tagged from 1000 on.
    fn apply(reindex: &Reindex, list: &[u32]) -> Vec<u32> {
        match reindex {
            Reindex::Insert(positions) => {
                let mut out = list.to_vec();
                for (k, &p) in positions.iter().enumerate() {
                    out.insert(p as usize, 1000 + k as u32);
                }
                out
            }
            Reindex::Remove(positions) => list
                .iter()
                .enumerate()
                .filter(|(i, _)| !positions.contains(&(*i as u32)))
                .map(|(_, &t)| t)
                .collect(),
            Reindex::Reorder(runs) => {
                let mut out = vec![u32::MAX; list.len()];
                for run in runs.iter() {
                    for k in 0..run.len {
                        out[(run.new + k) as usize] = list[(run.old + k) as usize];
                    }
                }
                out
            }
            Reindex::Chain(steps) => steps.iter().fold(list.to_vec(), |l, s| apply(s, &l)),
        }
    }

    fn check(reindex: &Reindex, old_len: usize) {
        let before: Vec<u32> = (0..old_len as u32).collect();
        let after = apply(reindex, &before);
        let mut seen = vec![false; after.len()];
        for (old, &tag) in before.iter().enumerate() {
            match reindex.map(old) {
                Some(new) => {
                    assert_eq!(after[new], tag, "{reindex:?}: {old} → {new}");
                    seen[new] = true;
                }
                None => assert!(!after.contains(&tag), "{reindex:?}: {old} is still there"),
            }
        }
        let created: Vec<usize> = reindex.created().into_iter().flatten().collect();
        let unseen: Vec<usize> = (0..after.len()).filter(|&n| !seen[n]).collect();
        assert_eq!(created, unseen, "{reindex:?}: created");
        let removed: Vec<usize> = (0..old_len).filter(|&o| reindex.map(o).is_none()).collect();
        assert_eq!(reindex.removed(), removed, "{reindex:?}: removed");
        let back = reindex.inverse();
        for old in 0..old_len {
            if let Some(new) = reindex.map(old) {
                assert_eq!(back.map(new), Some(old), "{reindex:?}: inverse of {old}");
            }
        }
        for &new in &created {
            assert_eq!(back.map(new), None, "{reindex:?}: inverse removes {new}");
        }
    }

    #[test]
    fn every_form_maps_as_the_list_changes() {
        check(&Reindex::Insert(vec![0, 2, 3, 7].into()), 5);
        check(&Reindex::Remove(vec![0, 2, 3, 4].into()), 6);
        check(&Reindex::from_order(&[3, 4, 0, 1, 2, 5]), 6);
        let chain = Reindex::Insert(vec![1, 2].into())
            .then(Reindex::Remove(vec![0, 2, 5].into()))
            .then(Reindex::from_order(&[2, 0, 1, 3]))
            .then(Reindex::Insert(vec![0].into()));
        check(&chain, 5);
    }

    #[test]
    fn a_small_move_in_a_big_list_is_a_few_runs() {
        let len = 1_000_000u32;
        // Elements 10, 11 and 500,000 move to the front.
        let mut order = vec![10, 11, 500_000];
        order.extend((0..len).filter(|&i| i != 10 && i != 11 && i != 500_000));
        let reindex = Reindex::from_order(&order);
        assert!(
            reindex.heap_size() <= 6 * std::mem::size_of::<Run>(),
            "{reindex:?}"
        );
        assert_eq!(reindex.map(500_000), Some(2));
        assert_eq!(reindex.map(0), Some(3));
        assert_eq!(reindex.map(12), Some(13));
        assert_eq!(reindex.map(500_001), Some(500_001));
        assert_eq!(reindex.inverse().map(2), Some(500_000));
    }
}
