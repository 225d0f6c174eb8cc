-- Derivatives of gamma, lgamma, erf and erfc (f64).
-- ==
-- entry: gamma_fwd
-- input { 1.0f64 } output { -0.5772156649015329f64 }
-- input { 2.5f64 } output { 0.9347345216260857f64 }
-- input { 4.0f64 } output { 7.5367060105908035f64 }

entry gamma_fwd (x: f64) = jvp f64.gamma x 1

-- ==
-- entry: gamma_scaled
-- input { 1.0f64 2.5 } output { -1.443039162253832f64 }
-- input { 2.5f64 2.5 } output { 2.3368363040652143f64 }
-- input { 4.0f64 2.5 } output { 18.84176502647701f64 }

entry gamma_scaled (x: f64) (dx: f64) = jvp f64.gamma x dx

-- ==
-- entry: lgamma_fwd
-- input { 1.0f64 } output { -0.5772156649015329f64 }
-- input { 2.5f64 } output { 0.7031566406452432f64 }
-- input { 10.0f64 } output { 2.251752589066721f64 }

entry lgamma_fwd (x: f64) = jvp f64.lgamma x 1

-- ==
-- entry: lgamma_scaled
-- input { 1.0f64 2.5 } output { -1.443039162253832f64 }
-- input { 2.5f64 2.5 } output { 1.757891601613108f64 }
-- input { 10.0f64 2.5 } output { 5.629381472666802f64 }

entry lgamma_scaled (x: f64) (dx: f64) = jvp f64.lgamma x dx

-- ==
-- entry: erf_fwd
-- input { 0.0f64 } output { 1.1283791670955126f64 }
-- input { 0.5f64 } output { 0.8787825789354448f64 }
-- input { -1.0f64 } output { 0.4151074974205947f64 }

entry erf_fwd (x: f64) = jvp f64.erf x 1

-- ==
-- entry: erf_scaled
-- input { 0.0f64 2.5 } output { 2.8209479177387813f64 }
-- input { 0.5f64 2.5 } output { 2.196956447338612f64 }
-- input { -1.0f64 2.5 } output { 1.0377687435514868f64 }

entry erf_scaled (x: f64) (dx: f64) = jvp f64.erf x dx

-- ==
-- entry: erfc_fwd
-- input { 0.0f64 } output { -1.1283791670955126f64 }
-- input { 0.5f64 } output { -0.8787825789354448f64 }
-- input { -1.0f64 } output { -0.4151074974205947f64 }

entry erfc_fwd (x: f64) = jvp f64.erfc x 1

-- ==
-- entry: erfc_scaled
-- input { 0.0f64 2.5 } output { -2.8209479177387813f64 }
-- input { 0.5f64 2.5 } output { -2.196956447338612f64 }
-- input { -1.0f64 2.5 } output { -1.0377687435514868f64 }

entry erfc_scaled (x: f64) (dx: f64) = jvp f64.erfc x dx

