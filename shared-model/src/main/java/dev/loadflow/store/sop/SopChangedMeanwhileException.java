package dev.loadflow.store.sop;

import dev.loadflow.store.StoreException;

/** Two changes of one client's SOP at once: the other took the version number; read the SOP again and retry. */
public final class SopChangedMeanwhileException extends StoreException {

    public SopChangedMeanwhileException(String clientId, Throwable cause) {
        super("the SOP of " + clientId + " changed meanwhile: read it again", cause);
    }
}
