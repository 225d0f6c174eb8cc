-- f32 versions of some primitive derivatives.
-- ==
-- entry: fwd
-- input { 1.0f32 } output { 0.5403023f32 2.7182817f32 0.25f32 0.41997434f32 }
-- input { 0.25f32 } output { 0.9689124f32 1.2840254f32 0.5f32 0.94001485f32 }

entry fwd (x: f32) =
  (jvp f32.sin x 1, jvp f32.exp x 1, jvp f32.sqrt x 0.5, jvp f32.tanh x 1)

-- ==
-- entry: div32
-- input { 3.0f32 2.0f32 } output { 0.5f32 -0.75f32 }

entry div32 (x: f32) (y: f32) = (jvp (\a -> a / y) x 1, jvp (\b -> x / b) y 1)
