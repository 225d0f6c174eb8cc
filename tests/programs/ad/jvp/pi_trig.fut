-- Derivatives of sinpi, cospi, tanpi, asinpi, acospi and atanpi (f64).
-- ==
-- entry: sinpi_fwd
-- input { 0.0f64 } output { 3.141592653589793f64 }
-- input { 0.25f64 } output { 2.221441469079183f64 }
-- input { 1.0f64 } output { -3.141592653589793f64 }

entry sinpi_fwd (x: f64) = jvp f64.sinpi x 1

-- ==
-- entry: sinpi_scaled
-- input { 0.0f64 2.5 } output { 7.853981633974483f64 }
-- input { 0.25f64 2.5 } output { 5.553603672697958f64 }
-- input { 1.0f64 2.5 } output { -7.853981633974483f64 }

entry sinpi_scaled (x: f64) (dx: f64) = jvp f64.sinpi x dx

-- ==
-- entry: cospi_fwd
-- input { 0.0f64 } output { -0.0f64 }
-- input { 0.5f64 } output { -3.141592653589793f64 }
-- input { 0.25f64 } output { -2.221441469079183f64 }

entry cospi_fwd (x: f64) = jvp f64.cospi x 1

-- ==
-- entry: cospi_scaled
-- input { 0.0f64 2.5 } output { -0.0f64 }
-- input { 0.5f64 2.5 } output { -7.853981633974483f64 }
-- input { 0.25f64 2.5 } output { -5.553603672697958f64 }

entry cospi_scaled (x: f64) (dx: f64) = jvp f64.cospi x dx

-- ==
-- entry: tanpi_fwd
-- input { 0.0f64 } output { 3.141592653589793f64 }
-- input { 0.25f64 } output { 6.2831853071795845f64 }
-- input { -0.1f64 } output { 3.4732594147632962f64 }

entry tanpi_fwd (x: f64) = jvp f64.tanpi x 1

-- ==
-- entry: tanpi_scaled
-- input { 0.0f64 2.5 } output { 7.853981633974483f64 }
-- input { 0.25f64 2.5 } output { 15.707963267948962f64 }
-- input { -0.1f64 2.5 } output { 8.683148536908242f64 }

entry tanpi_scaled (x: f64) (dx: f64) = jvp f64.tanpi x dx

-- ==
-- entry: asinpi_fwd
-- input { 0.0f64 } output { 0.3183098861837907f64 }
-- input { 0.5f64 } output { 0.3675525969478614f64 }

entry asinpi_fwd (x: f64) = jvp f64.asinpi x 1

-- ==
-- entry: asinpi_scaled
-- input { 0.0f64 2.5 } output { 0.7957747154594768f64 }
-- input { 0.5f64 2.5 } output { 0.9188814923696536f64 }

entry asinpi_scaled (x: f64) (dx: f64) = jvp f64.asinpi x dx

-- ==
-- entry: acospi_fwd
-- input { 0.0f64 } output { -0.3183098861837907f64 }
-- input { 0.5f64 } output { -0.3675525969478614f64 }

entry acospi_fwd (x: f64) = jvp f64.acospi x 1

-- ==
-- entry: acospi_scaled
-- input { 0.0f64 2.5 } output { -0.7957747154594768f64 }
-- input { 0.5f64 2.5 } output { -0.9188814923696536f64 }

entry acospi_scaled (x: f64) (dx: f64) = jvp f64.acospi x dx

-- ==
-- entry: atanpi_fwd
-- input { 0.0f64 } output { 0.3183098861837907f64 }
-- input { 1.0f64 } output { 0.15915494309189535f64 }
-- input { 2.0f64 } output { 0.06366197723675814f64 }

entry atanpi_fwd (x: f64) = jvp f64.atanpi x 1

-- ==
-- entry: atanpi_scaled
-- input { 0.0f64 2.5 } output { 0.7957747154594768f64 }
-- input { 1.0f64 2.5 } output { 0.3978873577297384f64 }
-- input { 2.0f64 2.5 } output { 0.15915494309189535f64 }

entry atanpi_scaled (x: f64) (dx: f64) = jvp f64.atanpi x dx

