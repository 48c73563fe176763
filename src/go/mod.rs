//! Go standard-library behaviour that several stages need byte for byte: one
//! implementation each, checked by the goldens of every stage that prints it.
//!
//! * [`quote`]: `strconv.Quote` / `QuoteToASCII` / `QuoteRune` and `strconv.IsPrint`
//!   (tables from Go in [`isprint`]);
//! * [`errors`]: `utilerrors.NewAggregate(...).Error()` (brackets, dedup);
//! * [`float`]: `strconv.FormatFloat(f, 'g', -1, 64)` and `encoding/json` float text;
//! * [`regex`]: Go `regexp` (RE2) semantics and compile errors on the regex crate;
//! * [`base64`]: `encoding/base64.StdEncoding` (encode, and decode with Go's error
//!   offsets);
//! * [`json`]: `encoding/json` marshal text and number decoding (apimachinery's and
//!   `sigs.k8s.io/yaml`'s);
//! * [`jsonpatch`] and [`mergepatch`]: evanphx/json-patch v5.9.11, RFC 6902 and RFC 7386
//!   (apply, and `CreateMergePatch`);
//! * [`strconv`]: `strconv.Atoi` and its errors;
//! * [`unstructured`]: apimachinery's `unstructured.Nested*` accessor errors (Go's `%v`
//!   and `%T` of a decoded value).

pub mod base64;
pub mod errors;
pub mod float;
pub mod isprint;
pub mod json;
pub mod jsonpatch;
pub mod mergepatch;
pub mod quote;
pub mod regex;
pub mod strconv;
pub mod unstructured;
pub mod untrusted;
