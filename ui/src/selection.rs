//! What the user has selected: element indices per kind (data indices, never view rows), the
//! current element (whose properties the panel shows, and where Shift-click ranges start).

use pmx_core::edit::Reindex;
use pmx_core::model::ElementKind;

/// A set of element indices as a bit set: selecting all of 1,000,000 vertices costs 125 kB,
/// and membership tests in the table are O(1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexSet {
    words: Vec<u64>,
    count: usize,
}

impl IndexSet {
    #[must_use]
    pub fn contains(&self, index: usize) -> bool {
        self.words
            .get(index / 64)
            .is_some_and(|w| w & (1 << (index % 64)) != 0)
    }

    pub fn insert(&mut self, index: usize) {
        let word = index / 64;
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let bit = 1 << (index % 64);
        if self.words[word] & bit == 0 {
            self.words[word] |= bit;
            self.count += 1;
        }
    }

    pub fn remove(&mut self, index: usize) {
        if let Some(word) = self.words.get_mut(index / 64) {
            let bit = 1 << (index % 64);
            if *word & bit != 0 {
                *word &= !bit;
                self.count -= 1;
            }
        }
    }

    pub fn toggle(&mut self, index: usize) {
        if self.contains(index) {
            self.remove(index);
        } else {
            self.insert(index);
        }
    }

    pub fn clear(&mut self) {
        self.words.clear();
        self.count = 0;
    }

    /// Adds `start..end` (a word at a time: selecting a million new vertices is cheap).
    pub fn insert_range(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        let last_word = (end - 1) / 64;
        if last_word >= self.words.len() {
            self.words.resize(last_word + 1, 0);
        }
        for word in start / 64..=last_word {
            let low = if word == start / 64 { start % 64 } else { 0 };
            let high = if word == last_word {
                (end - 1) % 64
            } else {
                63
            };
            let mask = (u64::MAX >> (63 - high)) & (u64::MAX << low);
            self.count += (mask & !self.words[word]).count_ones() as usize;
            self.words[word] |= mask;
        }
    }

    /// Drops every index `>= len` (after elements were removed).
    pub fn truncate(&mut self, len: usize) {
        let full_words = len / 64;
        if self.words.len() > full_words {
            if !len.is_multiple_of(64) {
                let keep = (1u64 << (len % 64)) - 1;
                self.words[full_words] &= keep;
                self.words.truncate(full_words + 1);
            } else {
                self.words.truncate(full_words);
            }
            self.count = self.words.iter().map(|w| w.count_ones() as usize).sum();
        }
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The indices in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let bit = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(w * 64 + bit)
            })
        })
    }

    /// A hash of the set, for caches keyed by the selection (O(len / 64)).
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        let used = self
            .words
            .iter()
            .rposition(|&w| w != 0)
            .map_or(0, |p| p + 1);
        self.words[..used].hash(&mut hasher);
        hasher.finish()
    }

    #[must_use]
    pub fn first(&self) -> Option<usize> {
        self.iter().next()
    }

    #[must_use]
    pub fn to_vec(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.count);
        out.extend(self.iter());
        out
    }
}

impl FromIterator<usize> for IndexSet {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        let mut set = IndexSet::default();
        for index in iter {
            set.insert(index);
        }
        set
    }
}

/// The selection of one kind of element.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KindSelection {
    pub indices: IndexSet,
    /// The element last clicked: the property panel shows it, Shift-click extends from it.
    pub current: Option<usize>,
}

impl KindSelection {
    /// Only `index`.
    pub fn select_only(&mut self, index: usize) {
        self.indices.clear();
        self.indices.insert(index);
        self.current = Some(index);
    }

    pub fn clear(&mut self) {
        self.indices.clear();
        self.current = None;
    }

    /// Follows the selected elements through `reindex`, the renumbering of their list by a
    /// change after which it holds `len` elements (the edit's own report: nothing here works
    /// out what the edit did). Each selected element stays selected wherever it went; those
    /// the change removed leave the selection, and no other element joins it. Returns the
    /// elements that left, as indices before the change (an undo selects them again).
    pub fn follow(&mut self, reindex: &Reindex, len: usize) -> Dropped {
        let map = |index: usize| reindex.map(index).filter(|&new| new < len);
        let mut dropped = Dropped {
            indices: Vec::new(),
            current: self.current,
        };
        let mut indices = IndexSet::default();
        for old in self.indices.iter() {
            match map(old) {
                Some(new) => indices.insert(new),
                None => dropped.indices.push(old),
            }
        }
        let current = self.current.and_then(map);
        if let Some(old) = self.current
            && current.is_none()
            && !self.indices.contains(old)
        {
            // The current element alone (nothing marked) stood for the selection.
            dropped.indices.push(old);
        }
        self.indices = indices;
        self.current = current.or_else(|| self.indices.first());
        dropped
    }

    /// Makes what the change created (inserted or duplicated elements, as the table's Insert
    /// and Duplicate do for the rows the user acted on) the selection, the first of them the
    /// current element. Returns what was selected before, as indices before the change.
    pub fn select_created(&mut self, reindex: &Reindex, len: usize) -> Dropped {
        let dropped = Dropped {
            indices: self.targets(),
            current: self.current,
        };
        self.indices.clear();
        for range in &reindex.created() {
            self.indices
                .insert_range(range.start.min(len), range.end.min(len));
        }
        self.current = self.indices.first();
        dropped
    }

    /// Selects again what a change dropped from the selection (`dropped`, as indices of the
    /// list as it is now that the change is undone).
    pub fn restore(&mut self, dropped: &Dropped, len: usize) {
        for &index in &dropped.indices {
            if index < len {
                self.indices.insert(index);
            }
        }
        if let Some(current) = dropped
            .current
            .filter(|&c| c < len && self.indices.contains(c))
        {
            self.current = Some(current);
        } else if self.current.is_none() {
            self.current = self.indices.first();
        }
    }

    /// Keeps the selection within a list of `len` elements.
    pub fn truncate(&mut self, len: usize) {
        self.indices.truncate(len);
        if self.current.is_some_and(|c| c >= len) {
            self.current = self.indices.iter().last();
        }
    }

    /// What tells one selection from another cheaply (count, current element, a hash of the
    /// set): the editor compares it across a frame to notice selection changes made anywhere.
    #[must_use]
    pub fn signature(&self) -> (usize, Option<usize>, u64) {
        (self.indices.len(), self.current, self.indices.fingerprint())
    }

    /// How many elements [`Self::targets`] holds, without listing them (1,000,000 selected
    /// vertices would be an 8 MB list every frame).
    #[must_use]
    pub fn target_count(&self) -> usize {
        if self.indices.is_empty() {
            usize::from(self.current.is_some())
        } else {
            self.indices.len()
        }
    }

    /// The selected indices, ascending; the current element alone when nothing is marked.
    #[must_use]
    pub fn targets(&self) -> Vec<usize> {
        if self.indices.is_empty() {
            self.current.into_iter().collect()
        } else {
            self.indices.to_vec()
        }
    }
}

/// The selected elements a change took out of a kind's selection, as indices before the
/// change, with the current element then: what its undo selects again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dropped {
    pub indices: Vec<usize>,
    pub current: Option<usize>,
}

impl Dropped {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

/// The selection of every kind, with a generation counter that changes whenever it does (views
/// cache what they derive from it).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    kinds: [KindSelection; ElementKind::ALL.len()],
    generation: u64,
}

impl Selection {
    #[must_use]
    pub fn get(&self, kind: ElementKind) -> &KindSelection {
        &self.kinds[kind_slot(kind)]
    }

    /// The selection of `kind`, for changing it (counts as a change).
    pub fn get_mut(&mut self, kind: ElementKind) -> &mut KindSelection {
        self.generation += 1;
        &mut self.kinds[kind_slot(kind)]
    }

    /// The signature of every kind's selection, in `ElementKind::ALL` order.
    #[must_use]
    pub fn signatures(&self) -> Vec<(usize, Option<usize>, u64)> {
        self.kinds.iter().map(KindSelection::signature).collect()
    }

    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// The position of `kind` in `ElementKind::ALL`, for per-kind arrays.
#[must_use]
pub fn kind_slot(kind: ElementKind) -> usize {
    ElementKind::ALL
        .iter()
        .position(|&k| k == kind)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_set_counts_and_iterates_in_order() {
        let mut set: IndexSet = [5, 1, 64, 1000, 5].into_iter().collect();
        assert_eq!(set.len(), 4);
        assert_eq!(set.to_vec(), vec![1, 5, 64, 1000]);
        set.toggle(5);
        set.toggle(2);
        assert_eq!(set.to_vec(), vec![1, 2, 64, 1000]);
        set.truncate(64);
        assert_eq!(set.to_vec(), vec![1, 2]);
        assert_eq!(set.len(), 2);
        assert!(!set.contains(1000));
    }

    #[test]
    fn truncate_on_a_word_boundary() {
        let mut set: IndexSet = (0..200).collect();
        set.truncate(128);
        assert_eq!(set.len(), 128);
        assert_eq!(set.iter().last(), Some(127));
    }

    #[test]
    fn insert_range_sets_whole_words_and_counts_once() {
        let mut set: IndexSet = [3, 70].into_iter().collect();
        set.insert_range(2, 200);
        assert_eq!(set.len(), 198);
        assert_eq!(set.to_vec(), (2..200).collect::<Vec<_>>());
        set.insert_range(64, 128);
        assert_eq!(set.len(), 198);
        let mut edge = IndexSet::default();
        edge.insert_range(63, 65);
        assert_eq!(edge.to_vec(), vec![63, 64]);
    }

    fn selection(indices: &[usize], current: Option<usize>) -> KindSelection {
        KindSelection {
            indices: indices.iter().copied().collect(),
            current,
        }
    }

    #[test]
    fn the_selection_follows_its_elements_and_nothing_joins_it() {
        use std::sync::Arc;
        // Elements 2 and 5 of 8 removed: 3 → 2, 6 → 4.
        let remove = Reindex::Remove(Arc::from([2u32, 5]));
        let mut s = selection(&[3, 6], Some(6));
        let dropped = s.follow(&remove, 6);
        assert_eq!((s.targets(), s.current), (vec![2, 4], Some(4)));
        assert!(dropped.is_empty());
        // Deleting the selection leaves nothing selected (no neighbour joins), and says what
        // left, for the undo.
        let mut s = selection(&[2, 5], Some(2));
        let dropped = s.follow(&remove, 6);
        assert_eq!((s.targets(), s.current), (vec![], None));
        assert_eq!(dropped.indices, vec![2, 5]);
        // The undo of the delete brings 2 and 5 back (inserted at 2 and 5): they are selected
        // again.
        let mut back = selection(&[], None);
        back.follow(&Reindex::Insert(Arc::from([2u32, 5])), 8);
        back.restore(&dropped, 8);
        assert_eq!((back.targets(), back.current), (vec![2, 5], Some(2)));
        // Undoing inserted elements takes them out of the selection; nothing else joins.
        let mut s = selection(&[2, 6], Some(2));
        s.follow(&Reindex::Remove(Arc::from([2u32, 6])), 6);
        assert_eq!((s.targets(), s.current), (vec![], None));
        // What a change creates does not join by itself...
        let mut s = selection(&[0], Some(0));
        s.follow(&Reindex::Insert(Arc::from([3u32, 4])), 9);
        assert_eq!((s.targets(), s.current), (vec![0], Some(0)));
        // ...only when the command asks (a table's Insert or Duplicate).
        let mut s = selection(&[0], Some(0));
        let dropped = s.select_created(&Reindex::Insert(Arc::from([3u32, 4])), 9);
        assert_eq!((s.targets(), s.current), (vec![3, 4], Some(3)));
        assert_eq!(dropped.indices, vec![0]);
        // A reorder keeps the same elements, wherever they went.
        let mut s = selection(&[0, 3], Some(3));
        s.follow(&Reindex::from_order(&[3, 2, 1, 0]), 4);
        assert_eq!((s.targets(), s.current), (vec![0, 3], Some(0)));
    }

    #[test]
    fn current_follows_truncation() {
        let mut selection = KindSelection {
            indices: [1, 3, 9].into_iter().collect(),
            current: Some(9),
        };
        selection.truncate(5);
        assert_eq!(selection.current, Some(3));
        assert_eq!(selection.targets(), vec![1, 3]);
    }
}
