# Writes a synthetic SWF v2.2 trace of N jobs (awk -v n=N -v seed=S): Poisson
# arrivals, sizes 1..64 processors in powers of two (small jobs common, as in
# the Parallel Workloads Archive logs), log-uniform run times of 1 min to
# 5 h, about 1 % cancelled jobs (run time -1), as a stand-in for a real log
# of that length (no trace is downloaded).
BEGIN {
  srand(seed);
  print "; Version: 2.2";
  print "; Computer: synthetic (bench/sim/make-swf.awk), " n " jobs";
  print "; MaxNodes: 128";
  t = 0;
  for (i = 1; i <= n; i++) {
    t += int(-log(1 - rand()) * mean);
    k = int(rand() * rand() * 7);
    size = 2 ^ k;
    run = int(exp(log(60) + rand() * (log(18000) - log(60))));
    if (rand() < 0.01) run = -1;
    printf "%d %d -1 %d %d -1 -1 %d %d -1 1 %d 1 %d 1 -1 -1 -1\n", i, t, run, size, size, run * 2, i % 97, i % 13;
  }
}
