//! Tensor layouts, numbered exactly as GE's `ge::Format`.

use std::fmt;

macro_rules! formats {
    ($( $variant:ident = $value:literal, $name:literal; )*) => {
        /// GE's `ge::Format` (primary formats only; sub-format bits are not used).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Format {
            $( $variant = $value, )*
        }

        impl Format {
            /// Every format, in numbering order.
            pub const ALL: &'static [Format] = &[$( Format::$variant, )*];

            /// The format with GE's number `value`.
            pub fn from_ge(value: i64) -> Option<Format> {
                match value {
                    $( $value => Some(Format::$variant), )*
                    _ => None,
                }
            }

            /// GE's name without the `FORMAT_` prefix, e.g. `NC1HWC0`.
            pub fn name(self) -> &'static str {
                match self {
                    $( Format::$variant => $name, )*
                }
            }

            /// The format named `name` (GE spelling, with or without `FORMAT_`).
            pub fn from_name(name: &str) -> Option<Format> {
                let name = name.strip_prefix("FORMAT_").unwrap_or(name);
                match name {
                    $( $name => Some(Format::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

formats! {
    Nchw = 0, "NCHW";
    Nhwc = 1, "NHWC";
    Nd = 2, "ND";
    Nc1hwc0 = 3, "NC1HWC0";
    FractalZ = 4, "FRACTAL_Z";
    Nc1c0hwpad = 5, "NC1C0HWPAD";
    Nhwc1c0 = 6, "NHWC1C0";
    FsrNchw = 7, "FSR_NCHW";
    FractalDeconv = 8, "FRACTAL_DECONV";
    C1hwnc0 = 9, "C1HWNC0";
    FractalDeconvTranspose = 10, "FRACTAL_DECONV_TRANSPOSE";
    FractalDeconvSpStrideTrans = 11, "FRACTAL_DECONV_SP_STRIDE_TRANS";
    Nc1hwc0C04 = 12, "NC1HWC0_C04";
    FractalZC04 = 13, "FRACTAL_Z_C04";
    Chwn = 14, "CHWN";
    FractalDeconvSpStride8Trans = 15, "FRACTAL_DECONV_SP_STRIDE8_TRANS";
    Hwcn = 16, "HWCN";
    Nc1khkwhwc0 = 17, "NC1KHKWHWC0";
    BnWeight = 18, "BN_WEIGHT";
    FilterHwck = 19, "FILTER_HWCK";
    C1hwncoc0 = 25, "C1HWNCoC0";
    Md = 26, "MD";
    Ndhwc = 27, "NDHWC";
    FractalZz = 28, "FRACTAL_ZZ";
    FractalNz = 29, "FRACTAL_NZ";
    Ncdhw = 30, "NCDHW";
    Dhwcn = 31, "DHWCN";
    Ndc1hwc0 = 32, "NDC1HWC0";
    FractalZ3d = 33, "FRACTAL_Z_3D";
    Cn = 34, "CN";
    Nc = 35, "NC";
    Dhwnc = 36, "DHWNC";
    FractalZ3dTranspose = 37, "FRACTAL_Z_3D_TRANSPOSE";
    FractalZnLstm = 38, "FRACTAL_ZN_LSTM";
    FractalZG = 39, "FRACTAL_Z_G";
    Reserved = 40, "RESERVED";
    All = 41, "ALL";
    Null = 42, "NULL";
    NdRnnBias = 43, "ND_RNN_BIAS";
    FractalZnRnn = 44, "FRACTAL_ZN_RNN";
    Nyuv = 45, "NYUV";
    NyuvA = 46, "NYUV_A";
    Ncl = 47, "NCL";
    FractalZWino = 48, "FRACTAL_Z_WINO";
    C1hwc0 = 49, "C1HWC0";
    FractalNzC016 = 50, "FRACTAL_NZ_C0_16";
    FractalNzC032 = 51, "FRACTAL_NZ_C0_32";
}

impl Format {
    /// GE's number for this format.
    pub fn ge_value(self) -> i64 {
        self as i64
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_and_names_round_trip() {
        for &f in Format::ALL {
            assert_eq!(Format::from_ge(f.ge_value()), Some(f));
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::FractalNz.ge_value(), 29);
        assert_eq!(Format::from_name("FORMAT_NHWC"), Some(Format::Nhwc));
    }
}
