"""Voice input: push-to-talk recording (sounddevice) and transcription on this computer.

Whisper runs through faster-whisper (CTranslate2); sound stays in memory. Modules are imported
directly (`hearth.voice.service`, ...), so `import hearth.voice` loads neither PortAudio nor
the model runtime.
"""
