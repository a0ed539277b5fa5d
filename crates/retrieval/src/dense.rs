//! Embeddings: one unit-length vector per document, so that cosine similarity is a dot
//! product. Queries compare against the few documents that pass a namespace's filter, so a
//! brute-force scan is all that is needed.

/// The vectors of one namespace's documents, row `ordinal` for document `ordinal`.
#[derive(Debug, Clone)]
pub(crate) struct Vectors {
    dimension: usize,
    rows: Vec<f32>,
}

impl Vectors {
    pub fn with_capacity(dimension: usize, documents: usize) -> Vectors {
        Vectors { dimension, rows: Vec::with_capacity(dimension * documents) }
    }

    /// Appends the next document's vector (of the right dimension, finite: checked by the
    /// caller). A zero vector stays zero: it is similar to nothing.
    pub fn push(&mut self, vector: &[f32]) {
        debug_assert_eq!(vector.len(), self.dimension);
        let norm = norm(vector);
        if norm > 0.0 {
            self.rows.extend(vector.iter().map(|x| x / norm));
        } else {
            self.rows.extend(vector);
        }
    }

    /// Cosine similarity of a document and a unit-length query vector.
    pub fn similarity(&self, ordinal: u32, unit_query: &[f32]) -> f64 {
        let start = ordinal as usize * self.dimension;
        self.rows.get(start..start + self.dimension).map_or(0.0, |row| dot(row, unit_query))
    }
}

/// A query vector scaled to unit length, or `None` when it cannot be compared with vectors of
/// `dimension` (wrong length, a value that is not finite, or all zeros).
pub(crate) fn unit_query(vector: &[f32], dimension: usize) -> Option<Vec<f32>> {
    if vector.len() != dimension || !vector.iter().all(|x| x.is_finite()) {
        return None;
    }
    let norm = norm(vector);
    (norm > 0.0).then(|| vector.iter().map(|x| x / norm).collect())
}

fn norm(vector: &[f32]) -> f32 {
    vector.iter().map(|x| x * x).sum::<f32>().sqrt()
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_is_cosine() {
        let mut vectors = Vectors::with_capacity(2, 3);
        vectors.push(&[3.0, 0.0]);
        vectors.push(&[1.0, 1.0]);
        vectors.push(&[0.0, 0.0]);
        let query = unit_query(&[2.0, 0.0], 2).unwrap();
        assert!((vectors.similarity(0, &query) - 1.0).abs() < 1e-6);
        assert!((vectors.similarity(1, &query) - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-6);
        assert_eq!(vectors.similarity(2, &query), 0.0);
        assert_eq!(vectors.similarity(7, &query), 0.0, "no such document");
    }

    #[test]
    fn unusable_query_vectors_are_refused() {
        assert!(unit_query(&[1.0], 2).is_none());
        assert!(unit_query(&[0.0, 0.0], 2).is_none());
        assert!(unit_query(&[f32::NAN, 1.0], 2).is_none());
    }
}
