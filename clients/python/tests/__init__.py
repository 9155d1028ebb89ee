# SPDX-License-Identifier: MIT OR Apache-2.0
