//! Object names and label keys, with OME's truncation rules.
