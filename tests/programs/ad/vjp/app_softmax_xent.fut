-- Softmax cross-entropy of a linear classifier: gradient in the logits and in the weights.

def log_softmax [k] (z: [k]f64) : [k]f64 =
  let m = f64.maximum z
  let l = m + f64.log (f64.sum (map (\t -> f64.exp (t - m)) z))
  in map (\t -> t - l) z

-- ==
-- entry: logits
-- input { [1.0, 2.0, 3.0, 4.0] 2i64 }
-- output { [0.03205860328008499, 0.08714431874203257, -0.7631171819100899, 0.6439142598879724] }
-- input { [0.0, 0.0, 0.0, 0.0] 0i64 }
-- output { [-0.75, 0.25, 0.25, 0.25] }
-- input { [10.0, -10.0, 3.0, 3.0] 3i64 }
-- output { [0.998179554075106, 2.057401403726009e-09, 0.0009102219337463382, -0.9990897780662537] }
entry logits (z: [4]f64) (label: i64) = vjp (\v -> -(log_softmax v)[label]) z 1

-- ==
-- entry: weights
-- input { [[-0.48, -0.4, 0.63], [-0.82, 0.2, 0.46], [-0.62, -0.89, -0.45], [0.31, 0.12, -0.7]] [0i64, 2i64, 1i64, 2i64] [[-0.83, -0.53, 0.6], [0.16, -0.81, -0.13], [-0.04, -0.68, 0.47]] }
-- output { [[-0.212349921642659, -0.01792548881949695, 0.23027541046215597], [0.1699280213992732, 0.28648788963661576, -0.4564159110358889], [-0.4484582316461317, 0.1828931113763945, 0.2655651202697371]] }
entry weights [m] [d] [k] (xss: [m][d]f64) (labels: [m]i64) (w: [d][k]f64) =
  vjp (\ww -> f64.sum (map2 (\x l -> -(log_softmax (map (\c -> f64.sum (map2 (*) x c)) (transpose ww)))[l]) xss labels)) w 1
