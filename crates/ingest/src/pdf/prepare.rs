//! Loading a PDF with lopdf and making it safe to hand to pdf-extract: refusing what cannot
//! be read (encrypted, too many pages, self-referencing drawings) and stripping image data
//! pdf-extract has no use for.

use std::collections::HashSet;
use std::panic::catch_unwind;

use lopdf::{Dictionary, Document, Object, ObjectId};

use crate::error::IngestError;
use crate::Limits;

/// Form XObjects drawn inside form XObjects deeper than this are refused: real documents
/// nest a handful, and pdf-extract recurses once per level on the stack.
const MAX_FORM_NESTING: usize = 24;
/// Guards the walk up a page's `Parent` chain against loops.
const MAX_PAGE_TREE_DEPTH: usize = 64;

pub(crate) fn load(file: &str, bytes: &[u8], limits: &Limits) -> Result<Document, IngestError> {
    let malformed = |detail: String| IngestError::MalformedPdf { file: file.to_owned(), detail };
    let encrypted = || IngestError::EncryptedPdf { file: file.to_owned() };

    let mut document = match catch_unwind(|| Document::load_mem(bytes)) {
        Ok(Ok(document)) => document,
        // lopdf fails outright on some encryption dictionaries it cannot use.
        Ok(Err(_)) | Err(_) if mentions_encryption(bytes) => return Err(encrypted()),
        Ok(Err(error)) => return Err(malformed(error.to_string())),
        Err(_) => return Err(malformed("the PDF parser cannot handle its structure".to_owned())),
    };
    // lopdf has already opened documents whose user password is empty (restrictions-only
    // encryption) and dropped their `Encrypt` entry; it survives only when a password is
    // really needed.
    if document.trailer.get(b"Encrypt").is_ok() {
        return Err(encrypted());
    }

    let page_count = document.get_pages().len();
    if page_count == 0 {
        return Err(malformed("it has no pages".to_owned()));
    }
    let page_count = u32::try_from(page_count).unwrap_or(u32::MAX);
    if page_count > limits.max_pages {
        return Err(IngestError::TooManyPages { file: file.to_owned(), pages: page_count, limit: limits.max_pages });
    }

    if has_runaway_forms(&document) {
        return Err(malformed("its drawings refer to themselves in a loop or are nested too deeply".to_owned()));
    }
    strip_images(&mut document);
    Ok(document)
}

fn mentions_encryption(bytes: &[u8]) -> bool {
    bytes.windows(8).any(|window| window == b"/Encrypt")
}

/// pdf-extract interprets every XObject it is asked to draw as a content stream, images
/// included; emptying image streams saves decoding them and keeps pixel bytes from being
/// parsed as drawing instructions.
fn strip_images(document: &mut Document) {
    for object in document.objects.values_mut() {
        if let Object::Stream(stream) = object {
            if stream.dict.get(b"Subtype").and_then(Object::as_name).is_ok_and(|subtype| subtype == b"Image") {
                stream.set_plain_content(Vec::new());
            }
        }
    }
}

/// Whether some page draws a form that (directly or not) draws itself, or nests forms too
/// deeply. pdf-extract follows such a loop until the stack overflows, which aborts the
/// process instead of panicking, so it must be caught before extraction.
fn has_runaway_forms(document: &Document) -> bool {
    let mut finished: HashSet<(ObjectId, usize)> = HashSet::new();
    for page_id in document.page_iter() {
        let Some(resources) = page_resources(document, page_id) else {
            continue;
        };
        if draws_runaway_form(document, resources, &mut Vec::new(), &mut finished) {
            return true;
        }
    }
    false
}

fn page_resources(document: &Document, page_id: ObjectId) -> Option<&Dictionary> {
    let mut node = document.get_dictionary(page_id).ok()?;
    for _ in 0..MAX_PAGE_TREE_DEPTH {
        if let Some(resources) = dictionary_at(document, node, b"Resources") {
            return Some(resources);
        }
        let parent = node.get(b"Parent").and_then(Object::as_reference).ok()?;
        node = document.get_dictionary(parent).ok()?;
    }
    None
}

fn dictionary_at<'a>(document: &'a Document, dictionary: &'a Dictionary, key: &[u8]) -> Option<&'a Dictionary> {
    let object = dictionary.get(key).ok()?;
    let (_, object) = document.dereference(object).ok()?;
    object.as_dict().ok()
}

/// Depth-first walk over the forms drawable with `resources`. `path` holds the forms being
/// drawn around the current point; `finished` the (form, resources) pairs already cleared,
/// so shared forms are walked once.
fn draws_runaway_form<'a>(
    document: &'a Document,
    resources: &'a Dictionary,
    path: &mut Vec<ObjectId>,
    finished: &mut HashSet<(ObjectId, usize)>,
) -> bool {
    if path.len() > MAX_FORM_NESTING {
        return true;
    }
    let Some(xobjects) = dictionary_at(document, resources, b"XObject") else {
        return false;
    };
    for (_, entry) in xobjects.iter() {
        let Ok(id) = entry.as_reference() else {
            continue;
        };
        if path.contains(&id) {
            return true;
        }
        let Ok(form) = document.get_object(id).and_then(Object::as_stream) else {
            continue;
        };
        if form.dict.get(b"Subtype").and_then(Object::as_name).is_ok_and(|subtype| subtype == b"Image") {
            continue;
        }
        // Like pdf-extract: a form without resources of its own draws with its parent's.
        let form_resources = dictionary_at(document, &form.dict, b"Resources").unwrap_or(resources);
        let key = (id, std::ptr::from_ref(form_resources) as usize);
        if finished.contains(&key) {
            continue;
        }
        path.push(id);
        if draws_runaway_form(document, form_resources, path, finished) {
            return true;
        }
        path.pop();
        finished.insert(key);
    }
    false
}

#[cfg(test)]
mod tests {
    use lopdf::{dictionary, Stream};

    use super::*;

    fn form(resources: Dictionary) -> Object {
        Object::Stream(Stream::new(
            dictionary! { "Type" => "XObject", "Subtype" => "Form", "Resources" => resources },
            b"/X Do".to_vec(),
        ))
    }

    #[test]
    fn a_form_drawing_itself_is_caught() {
        let mut document = Document::with_version("1.5");
        let form_id = document.new_object_id();
        document.objects.insert(form_id, form(dictionary! { "XObject" => dictionary! { "X" => form_id } }));
        let resources = dictionary! { "XObject" => dictionary! { "X" => form_id } };
        assert!(draws_runaway_form(&document, &resources, &mut Vec::new(), &mut HashSet::new()));
    }

    #[test]
    fn a_shared_form_drawn_twice_is_fine() {
        let mut document = Document::with_version("1.5");
        let leaf = document.add_object(form(Dictionary::new()));
        let middle = document.add_object(form(dictionary! { "XObject" => dictionary! { "A" => leaf, "B" => leaf } }));
        let resources = dictionary! { "XObject" => dictionary! { "M" => middle, "L" => leaf } };
        assert!(!draws_runaway_form(&document, &resources, &mut Vec::new(), &mut HashSet::new()));
    }
}
