//! Typed field handles: `Field<E, T>` names a field of type `T` inside elements of type `E`
//! by its path. The accessors that make them (`field::<Bone>().ik().links()`) are generated
//! with the `Reflect` listings (`reflect.rs`) and written by hand for enums (`typed.rs`); this
//! module is only the handle, so both can build on it.

use crate::path::FieldPath;
use std::fmt;
use std::marker::PhantomData;

/// A typed handle on a field of type `T` in elements of type `E`.
pub struct Field<E, T> {
    pub(crate) path: FieldPath,
    marker: PhantomData<fn(&E) -> &T>,
}

impl<E, T> Clone for Field<E, T> {
    fn clone(&self) -> Self {
        Self {
            path: self.path.clone(),
            marker: PhantomData,
        }
    }
}

impl<E, T> PartialEq for Field<E, T> {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl<E, T> fmt::Debug for Field<E, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Field<{}, {}>({})",
            std::any::type_name::<E>(),
            std::any::type_name::<T>(),
            self.path
        )
    }
}

impl<E> Field<E, E> {
    /// The whole element.
    #[must_use]
    pub fn root() -> Self {
        Self {
            path: FieldPath::whole(),
            marker: PhantomData,
        }
    }
}

impl<E, T> Field<E, T> {
    /// The handle's path inside the element (`ik.links[1].bone`).
    #[must_use]
    pub fn field_path(&self) -> &FieldPath {
        &self.path
    }

    /// A child field; only the generated accessors call it, with the child's real name and type.
    pub(crate) fn step<U>(self, name: &'static str) -> Field<E, U> {
        Field {
            path: self.path.field(name),
            marker: PhantomData,
        }
    }

    /// The same path as another type (only for an option's inside, which has the same path).
    pub(crate) fn retyped<U>(self) -> Field<E, U> {
        Field {
            path: self.path,
            marker: PhantomData,
        }
    }

    /// A list entry (only typed accessors call it, with the entry's real type).
    pub(crate) fn nth<U>(self, index: usize) -> Field<E, U> {
        Field {
            path: self.path.index(index),
            marker: PhantomData,
        }
    }
}
