import SightlineFrames

/// Constant-velocity Kalman filter for one coordinate: state (position, velocity).
///
/// SORT's box filter with a constant-velocity model and per-coordinate diagonal noise is four of
/// these side by side (the coordinates never mix), which keeps the arithmetic small and exact.
package struct AxisKalman: Sendable {
    package private(set) var position: Double
    package private(set) var velocity = 0.0
    // Covariance [[p00, p01], [p01, p11]].
    private var p00: Double
    private var p01 = 0.0
    private var p11: Double
    private let processNoise: Double
    private let measurementNoise: Double

    package init(position: Double, positionVariance: Double, velocityVariance: Double, processNoise: Double, measurementNoise: Double) {
        self.position = position
        self.p00 = positionVariance
        self.p11 = velocityVariance
        self.processNoise = processNoise
        self.measurementNoise = measurementNoise
    }

    /// Advances one frame: x += v, P = F P Fᵀ + Q.
    package mutating func predict() {
        position += velocity
        p00 += 2 * p01 + p11 + processNoise / 4
        p01 += p11 + processNoise / 2
        p11 += processNoise
    }

    /// Folds in a measured position.
    package mutating func update(_ z: Double) {
        let s = p00 + measurementNoise
        let k0 = p00 / s, k1 = p01 / s
        let residual = z - position
        position += k0 * residual
        velocity += k1 * residual
        let (q00, q01, q11) = (p00, p01, p11)
        p00 = (1 - k0) * q00
        p01 = (1 - k0) * q01
        p11 = q11 - k1 * q01
    }
}

/// A box moving at constant velocity: centre and size, each filtered on its own.
package struct BoxMotion: Sendable {
    private var cx, cy, w, h: AxisKalman

    package init(_ box: Box) {
        // Noise scaled to the box: a large face moves and jitters by more pixels than a small one.
        let s = max(box.w, box.h, 1)
        func axis(_ value: Double, jitter: Double) -> AxisKalman {
            AxisKalman(position: value, positionVariance: jitter * jitter, velocityVariance: s * s / 4,
                       processNoise: (0.05 * s) * (0.05 * s), measurementNoise: jitter * jitter)
        }
        cx = axis(box.center.x, jitter: 0.05 * s)
        cy = axis(box.center.y, jitter: 0.05 * s)
        w = axis(box.w, jitter: 0.05 * s)
        h = axis(box.h, jitter: 0.05 * s)
    }

    package var box: Box {
        let width = max(1, w.position), height = max(1, h.position)
        return Box(x: cx.position - width / 2, y: cy.position - height / 2, w: width, h: height)
    }

    package mutating func predict() {
        cx.predict(); cy.predict(); w.predict(); h.predict()
    }

    package mutating func update(_ box: Box) {
        cx.update(box.center.x); cy.update(box.center.y); w.update(box.w); h.update(box.h)
    }
}
