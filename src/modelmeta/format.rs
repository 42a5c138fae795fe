//! Numbers as OME's agent writes them: the parameter size (`3.21B`) and the model size in
//! bytes recorded in `modelConfiguration`.

/// OME's `FormatParamCount`: below 1000 the plain number; else the count in K, M, B or T,
/// written without decimals when whole, with one decimal when two suffice, else with two.
/// The tests are done in binary floating point as Go does them, so 1.25B is written `1.2B`
/// (one decimal, rounded half to even) and 3212749824 is `3.21B`.
pub(crate) fn parameter_size(count: i64) -> String {
    const UNITS: [(i64, &str); 4] = [
        (1_000_000_000_000, "T"),
        (1_000_000_000, "B"),
        (1_000_000, "M"),
        (1_000, "K"),
    ];
    let Some((unit, suffix)) = UNITS.iter().find(|(unit, _)| count >= *unit) else {
        return count.to_string();
    };
    let value = count as f64 / *unit as f64;
    // Go's float64 → int64 conversion truncates toward zero, as `as` does.
    if value == (value as i64) as f64 {
        return format!("{}{suffix}", value as i64);
    }
    let hundredths = value * 100.0;
    if hundredths == (hundredths as i64) as f64 {
        return format!("{value:.1}{suffix}");
    }
    format!("{value:.2}{suffix}")
}

/// OME's `EstimateModelSizeBytes`: the count times the bytes per parameter of the
/// lower-cased torch dtype, 4 for an unknown one.
pub(crate) fn size_bytes(count: i64, torch_dtype: &str) -> i64 {
    let per = match torch_dtype.to_lowercase().as_str() {
        "float32" | "float" => 4.0,
        "bfloat16" | "bf16" | "float16" | "fp16" | "half" => 2.0,
        "int8" | "fp8" | "float8" | "e4m3" => 1.0,
        "int4" | "4bit" => 0.5,
        _ => 4.0,
    };
    (count as f64 * per) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OME's TestFormatParamCount, and the rounding cases its float arithmetic produces.
    #[test]
    fn parameter_sizes() {
        for (count, want) in [
            (0, "0"),
            (100, "100"),
            (999, "999"),
            (1000, "1K"),
            (1500, "1.5K"),
            (10000, "10K"),
            (10500, "10.5K"),
            (150000, "150K"),
            (151500, "151.5K"),
            (1000000, "1M"),
            (1500000, "1.5M"),
            (10000000, "10M"),
            (10500000, "10.5M"),
            (150000000, "150M"),
            (151500000, "151.5M"),
            (1000000000, "1B"),
            (1500000000, "1.5B"),
            (10000000000, "10B"),
            (10500000000, "10.5B"),
            (150000000000, "150B"),
            (151500000000, "151.5B"),
            (685000000000, "685B"),
            (1000000000000, "1T"),
            (1500000000000, "1.5T"),
            (1512300000000, "1.51T"),
            // Two decimals that are exact are written with one, rounded half to even.
            (1_250_000_000, "1.2B"),
            (1_350_000_000, "1.4B"),
            (3_212_749_824, "3.21B"),
            (92564, "92.56K"),
            (-5, "-5"),
        ] {
            assert_eq!(parameter_size(count), want, "{count}");
        }
    }

    #[test]
    fn size_in_bytes() {
        assert_eq!(size_bytes(1000, "bfloat16"), 2000);
        assert_eq!(size_bytes(1000, "BF16"), 2000);
        assert_eq!(size_bytes(1001, "int4"), 500);
        assert_eq!(size_bytes(1000, ""), 4000);
        assert_eq!(size_bytes(1000, "float8_e4m3fn"), 4000);
    }
}
