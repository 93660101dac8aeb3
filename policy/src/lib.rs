//! Kubewarden policy (to be written).
