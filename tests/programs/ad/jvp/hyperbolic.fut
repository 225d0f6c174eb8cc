-- Derivatives of sinh, cosh, tanh, asinh, acosh and atanh (f64).
-- ==
-- entry: sinh_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 1.0f64 } output { 1.5430806348152437f64 }
-- input { -2.0f64 } output { 3.7621956910836314f64 }

entry sinh_fwd (x: f64) = jvp f64.sinh x 1

-- ==
-- entry: sinh_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 1.0f64 2.5 } output { 3.8577015870381093f64 }
-- input { -2.0f64 2.5 } output { 9.40548922770908f64 }

entry sinh_scaled (x: f64) (dx: f64) = jvp f64.sinh x dx

-- ==
-- entry: cosh_fwd
-- input { 0.0f64 } output { 0.0f64 }
-- input { 1.0f64 } output { 1.1752011936438014f64 }
-- input { -2.0f64 } output { -3.626860407847019f64 }

entry cosh_fwd (x: f64) = jvp f64.cosh x 1

-- ==
-- entry: cosh_scaled
-- input { 0.0f64 2.5 } output { 0.0f64 }
-- input { 1.0f64 2.5 } output { 2.9380029841095032f64 }
-- input { -2.0f64 2.5 } output { -9.067151019617548f64 }

entry cosh_scaled (x: f64) (dx: f64) = jvp f64.cosh x dx

-- ==
-- entry: tanh_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 0.5f64 } output { 0.7864477329659274f64 }
-- input { -1.5f64 } output { 0.18070663892364858f64 }

entry tanh_fwd (x: f64) = jvp f64.tanh x 1

-- ==
-- entry: tanh_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 0.5f64 2.5 } output { 1.9661193324148185f64 }
-- input { -1.5f64 2.5 } output { 0.45176659730912144f64 }

entry tanh_scaled (x: f64) (dx: f64) = jvp f64.tanh x dx

-- ==
-- entry: asinh_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 1.0f64 } output { 0.7071067811865475f64 }
-- input { -2.0f64 } output { 0.4472135954999579f64 }

entry asinh_fwd (x: f64) = jvp f64.asinh x 1

-- ==
-- entry: asinh_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 1.0f64 2.5 } output { 1.7677669529663687f64 }
-- input { -2.0f64 2.5 } output { 1.118033988749895f64 }

entry asinh_scaled (x: f64) (dx: f64) = jvp f64.asinh x dx

-- ==
-- entry: acosh_fwd
-- input { 2.0f64 } output { 0.5773502691896258f64 }
-- input { 1.5f64 } output { 0.8944271909999159f64 }
-- input { 5.0f64 } output { 0.20412414523193154f64 }

entry acosh_fwd (x: f64) = jvp f64.acosh x 1

-- ==
-- entry: acosh_scaled
-- input { 2.0f64 2.5 } output { 1.4433756729740645f64 }
-- input { 1.5f64 2.5 } output { 2.23606797749979f64 }
-- input { 5.0f64 2.5 } output { 0.5103103630798288f64 }

entry acosh_scaled (x: f64) (dx: f64) = jvp f64.acosh x dx

-- ==
-- entry: atanh_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 0.5f64 } output { 1.3333333333333333f64 }
-- input { -0.9f64 } output { 5.263157894736843f64 }

entry atanh_fwd (x: f64) = jvp f64.atanh x 1

-- ==
-- entry: atanh_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 0.5f64 2.5 } output { 3.333333333333333f64 }
-- input { -0.9f64 2.5 } output { 13.157894736842108f64 }

entry atanh_scaled (x: f64) (dx: f64) = jvp f64.atanh x dx

