package dev.ladder.inference.llm;

import dev.ladder.inference.model.ModelConfig;

/**
 * Rotary position embedding tables in the rotate-half layout of Hugging Face Llama: for position {@code p} and
 * frequency {@code f_i} ({@code i < headDim/2}) the angle is {@code p * f_i}, repeated for both halves of the head.
 */
final class Rope {
    private Rope() {}

    /** Inverse frequencies {@code 1 / theta^(2i/d)}, with Llama-3 scaling applied when the config has it. */
    static float[] inverseFrequencies(ModelConfig config) {
        int half = config.headDim() / 2;
        float[] inv = new float[half];
        for (int i = 0; i < half; i++) {
            inv[i] = (float) (1.0 / Math.pow(config.ropeTheta(), (2.0 * i) / config.headDim()));
        }
        ModelConfig.RopeScaling s = config.ropeScaling();
        if (s == null) return inv;
        // Llama 3.1: long wavelengths (low frequencies) are slowed down by `factor`, short ones kept, and the band in
        // between interpolated smoothly.
        double lowFreqWavelen = s.originalMaxPositions() / s.lowFreqFactor();
        double highFreqWavelen = s.originalMaxPositions() / s.highFreqFactor();
        for (int i = 0; i < half; i++) {
            double f = inv[i];
            double wavelen = 2 * Math.PI / f;
            double out;
            if (wavelen > lowFreqWavelen) {
                out = f / s.factor();
            } else if (wavelen < highFreqWavelen) {
                out = f;
            } else {
                double smooth = (s.originalMaxPositions() / wavelen - s.lowFreqFactor()) / (s.highFreqFactor() - s.lowFreqFactor());
                out = (1 - smooth) * f / s.factor() + smooth * f;
            }
            inv[i] = (float) out;
        }
        return inv;
    }

    /**
     * {@code [0]}: cos table {@code [positions, headDim]}; {@code [1]}: signed sin table {@code cat(-sin, sin)}, so
     * that {@code rope(x) = x * cos + cat(x2, x1) * sinSigned} equals {@code x * cos + rotate_half(x) * sin}.
     */
    static float[][] tables(ModelConfig config, int positions) {
        int hd = config.headDim();
        int half = hd / 2;
        float[] inv = inverseFrequencies(config);
        float[] cos = new float[positions * hd];
        float[] sin = new float[positions * hd];
        for (int p = 0; p < positions; p++) {
            for (int i = 0; i < half; i++) {
                float angle = (float) p * inv[i];          // float32 product, as the reference computes it
                float c = (float) Math.cos(angle);
                float s = (float) Math.sin(angle);
                cos[p * hd + i] = c;
                cos[p * hd + half + i] = c;
                sin[p * hd + i] = -s;
                sin[p * hd + half + i] = s;
            }
        }
        return new float[][] {cos, sin};
    }
}
