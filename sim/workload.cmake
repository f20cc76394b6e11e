# Workload generators: turn a WorkloadSpec (explicit jobs + Poisson generators) into jobs.
gantry_library(gantry_sim_workload SOURCES workload_generator.cpp DEPS gantry_cluster)
