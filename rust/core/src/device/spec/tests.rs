use super::*;

#[test]
fn presets_load_in_order_with_a_source_for_every_figure() {
    let presets = DeviceSpec::presets();
    let names: Vec<_> = presets.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Ascend310",
            "Ascend310P3",
            "Ascend310B1",
            "Ascend910A",
            "Ascend910B2"
        ]
    );
    let figures = [
        "ai_cores",
        "vector_cores",
        "clock_mhz",
        "cube_fp16_macs_per_cycle",
        "cube_int8_macs_per_cycle",
        "vector_bytes_per_cycle",
        "l1_to_l0a_bytes_per_cycle",
        "l0a_bytes",
        "l0b_bytes",
        "l0c_bytes",
        "l1_bytes",
        "ub_bytes",
        "l2_bytes",
        "memory_gb_per_s",
        "task_launch_us",
        "efficiency",
    ];
    for p in &presets {
        for figure in figures {
            assert!(
                p.sources.get(figure).is_some_and(|s| !s.is_empty()),
                "{} has no source for {figure}",
                p.name
            );
        }
    }
}

#[test]
fn published_peaks_follow_from_the_figures() {
    // Ascend 910: 256 TFLOPS fp16 (Hot Chips 31); 310P3: 70 TFLOPS fp16;
    // 310: 22 TOPS int8 at 680 MHz.
    let tflops = |name: &str| {
        let p = DeviceSpec::preset(name).unwrap();
        2.0 * p.peak_macs_per_s(p.cube_fp16_macs_per_cycle) / 1e12
    };
    assert!((tflops("Ascend910A") - 256.0).abs() < 0.5);
    assert!((tflops("Ascend310P3") - 70.0).abs() < 0.1);
    let tops = |name: &str| {
        let p = DeviceSpec::preset(name).unwrap();
        2.0 * p.peak_macs_per_s(p.cube_int8_macs_per_cycle) / 1e12
    };
    assert!((tops("Ascend310") - 22.28).abs() < 0.01);
    // 310B1: 20 TOPS int8 / 10 TFLOPS fp16 at its 20T rating.
    assert!(
        (tops("Ascend310B1") - 20.0).abs() < 0.01,
        "{}",
        tops("Ascend310B1")
    );
    assert!((tflops("Ascend310B1") - 10.0).abs() < 0.01);
    // Its L2 rate is derived from its clock: one core x 128 B/cycle.
    let b1 = DeviceSpec::preset("Ascend310B1").unwrap();
    assert!((b1.l2_gb_per_s - 128.0 * b1.clock_mhz / 1e3).abs() < 0.01);
}

#[test]
fn every_preset_says_whether_measurements_validate_it() {
    for p in DeviceSpec::presets() {
        assert!(
            !p.validation.trim().is_empty(),
            "{} has no validation note",
            p.name
        );
        assert_eq!(p.validation_flag().is_none(), p.validated, "{}", p.name);
    }
    for name in ["Ascend910A", "Ascend910B2", "Ascend310B1"] {
        let p = DeviceSpec::preset(name).unwrap();
        assert!(!p.validated, "{name}");
        assert_eq!(
            p.validation_flag().unwrap(),
            format!("no published measurement validates the {name} preset: treat its times as uncalibrated")
        );
    }
    for name in ["Ascend310", "Ascend310P3"] {
        assert!(DeviceSpec::preset(name).unwrap().validated, "{name}");
    }
    // A user's description that does not say is taken as its author's calibration.
    let mut text = DeviceSpec::preset("Ascend910B2").unwrap().to_toml();
    text = text
        .lines()
        .filter(|l| !l.starts_with("validated") && !l.starts_with("validation"))
        .collect::<Vec<_>>()
        .join("\n");
    let mine = DeviceSpec::from_toml(&text).unwrap();
    assert!(mine.validated && mine.validation.is_empty());
}

#[test]
fn the_310b1_shares_the_310p3_task_launch_overhead() {
    // Its two published rows do not determine one of its own (see its source).
    let b1 = DeviceSpec::preset("Ascend310B1").unwrap();
    let p3 = DeviceSpec::preset("Ascend310P3").unwrap();
    assert_eq!(b1.efficiency, p3.efficiency);
    assert_eq!(b1.task_launch_us, p3.task_launch_us);
    assert!(b1.sources["task_launch_us"].contains("Ascend 310P3 value"));
    assert!(!b1.validated);
}

#[test]
fn atc_spellings_find_the_presets() {
    for (spelling, name) in [
        ("Ascend310", "Ascend310"),
        ("ascend310", "Ascend310"),
        ("Ascend 310", "Ascend310"),
        ("Ascend310P3", "Ascend310P3"),
        ("Ascend910A", "Ascend910A"),
        ("Ascend910", "Ascend910A"),
        ("Ascend910B2", "Ascend910B2"),
        ("Ascend310B1", "Ascend310B1"),
        ("Ascend310B", "Ascend310B1"),
        ("Ascend310P", "Ascend310P3"),
    ] {
        assert_eq!(
            DeviceSpec::preset(spelling).unwrap().name,
            name,
            "{spelling}"
        );
    }
    let err = DeviceSpec::preset("Ascend999").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown SoC 'Ascend999'; the presets are Ascend310, Ascend310P3, Ascend310B1, Ascend910A, Ascend910B2"
    );
    // A target the soc table knows, without a preset of its own.
    let err = DeviceSpec::preset("ascend910b1").unwrap_err();
    assert_eq!(
        err.to_string(),
        "no cost preset describes Ascend910B1 (Ascend910B family); the presets are Ascend310, Ascend310P3, Ascend310B1, Ascend910A, Ascend910B2"
    );
}

#[test]
fn toml_and_json_round_trip() {
    for p in DeviceSpec::presets() {
        assert_eq!(DeviceSpec::from_toml(&p.to_toml()).unwrap(), p);
        assert_eq!(DeviceSpec::from_json(&p.to_json()).unwrap(), p);
    }
}

#[test]
fn bad_descriptions_are_rejected_with_the_field() {
    let mut p = DeviceSpec::preset("Ascend310").unwrap();
    p.efficiency.cube = 1.5;
    let err = DeviceSpec::from_toml(&p.to_toml()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the device description 'Ascend310' has efficiency.cube = 1.5, expected a fraction in (0, 1]"
    );
    p.efficiency.cube = 0.5;
    p.ai_cores = 0;
    assert!(matches!(
        DeviceSpec::from_json(&p.to_json()),
        Err(SpecError::Invalid {
            field: "ai_cores",
            ..
        })
    ));
    let err = DeviceSpec::from_toml("name = \"x\"\n").unwrap_err();
    assert!(
        matches!(err, SpecError::Parse { format: "TOML", .. }),
        "{err}"
    );
    assert!(err.to_string().contains("missing field"), "{err}");
    let err = DeviceSpec::from_json("{\"name\": 3}").unwrap_err();
    assert!(
        matches!(err, SpecError::Parse { format: "JSON", .. }),
        "{err}"
    );
    // A value out of its field's range names the field (JSON) or its line (TOML).
    let preset = DeviceSpec::preset("Ascend310").unwrap();
    let json = preset
        .to_json()
        .replace("\"ai_cores\": 2", "\"ai_cores\": -2");
    let err = DeviceSpec::from_json(&json).unwrap_err().to_string();
    assert!(
        err.contains("field \"ai_cores\": invalid value: integer `-2`"),
        "{err}"
    );
    let toml = preset.to_toml().replace("ai_cores = 2", "ai_cores = -2");
    let err = DeviceSpec::from_toml(&toml).unwrap_err().to_string();
    assert!(
        err.contains("(line ") && err.contains("`ai_cores = -2`"),
        "{err}"
    );
    let with_typo = DeviceSpec::preset("Ascend310")
        .unwrap()
        .to_toml()
        .replace("ai_cores", "ai_coress");
    assert!(DeviceSpec::from_toml(&with_typo)
        .unwrap_err()
        .to_string()
        .contains("ai_coress"));
}
