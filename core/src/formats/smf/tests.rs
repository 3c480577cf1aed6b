//! Unit tests of the SMF writer and reader.
