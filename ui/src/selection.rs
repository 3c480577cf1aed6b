//! What the user has selected: element indices per kind (data indices, never view rows), the
//! current element (whose properties the panel shows, and where Shift-click ranges start).

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

    /// Adds `start..end`.
    pub fn insert_range(&mut self, start: usize, end: usize) {
        for index in start..end {
            self.insert(index);
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
