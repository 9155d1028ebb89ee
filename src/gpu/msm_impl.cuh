// SPDX-License-Identifier: MIT OR Apache-2.0
// Everything an explicit instantiation of the GPU MSM needs: the class with its kernels and host
// steps (msm.cuh), then the accumulation's host drivers (msm_accumulate_run.cuh), which are
// members of the same class. Included only by msm_<group>_<curve>.cu.
#pragma once

#include "gpu/msm.cuh"
#include "gpu/msm_accumulate_run.cuh"
