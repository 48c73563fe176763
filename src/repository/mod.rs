//! repository
