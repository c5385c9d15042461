// Composable masks (attn::Mask): causal, key padding and a custom grid, alone and together,
// and the reason the core gives for each hidden cell.
